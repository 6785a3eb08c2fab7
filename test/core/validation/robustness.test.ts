// Robustness: replacing any field of a real manifest by a value of another JSON type never throws, and
// each problem is reported once (no cause appears twice).
import { describe, expect, it } from 'vitest';
import * as manifests from './manifests';
import { causesOf, type Any } from './helpers';

const REPLACEMENTS: unknown[] = [7, -1, 'x', '', true, null, [], [1, 'a'], {}, { a: [] }];

/** Every path into the object (objects and arrays), root excluded. */
function paths(v: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof v !== 'object' || v === null) return [];
  const out: (string | number)[][] = [];
  for (const [k, child] of Object.entries(v)) {
    const key = Array.isArray(v) ? Number(k) : k;
    out.push([...prefix, key], ...paths(child, [...prefix, key]));
  }
  return out;
}

function replaced(obj: Any, path: (string | number)[], value: unknown): Any {
  const copy = structuredClone(obj);
  let at: Any = copy;
  for (const k of path.slice(0, -1)) at = at[k];
  at[path.at(-1)!] = structuredClone(value);
  return copy;
}

describe('wrong-typed fields', () => {
  it.each(Object.entries(manifests))('%s: every field, every type', (_name, make) => {
    const base = make() as Any;
    let runs = 0;
    for (const path of paths(base)) {
      if (path[0] === 'apiVersion' || path[0] === 'kind' || path[0] === 'metadata') continue;
      for (const value of REPLACEMENTS) {
        const obj = replaced(base, path, value);
        const causes = causesOf(obj);
        const keys = causes.map((c) => `${c.field} ${c.message}`);
        expect(new Set(keys).size, `${path.join('.')} = ${JSON.stringify(value)}: ${keys.join(' | ')}`).toBe(keys.length);
        runs++;
      }
    }
    expect(runs).toBeGreaterThan(20);
  });
});
