// Script: micro-benchmark of typed decoding (core/schema walker + duplicate check) against the create path,
// for a ~1 KiB pod and a large Deployment. Not a test: run it by hand on a quiet machine.
//
// Usage: npx tsx scripts/bench-decode.ts [iterations]
//
// Prints, per object: its size, JSON.parse time, decode time (decodeObject: walk, prune, canonicalize,
// duplicate check), the whole in-memory create path (executeWrite: parse, decode, validation, defaults,
// commit to a Map), and decode as a share of that and of the ~1 ms a create takes in the store.

import { kindNode } from '../core/schema/compile';
import { decodeObject } from '../core/validation/known-fields';
import { executeWrite, type WriteStore } from '../core/writes';
import { lookupGroupResource } from '../core/registry';
import type { KubeObject } from '../core/object-meta';
import { deployment, pod } from '../test/core/schema/fixtures';

const STORE_CREATE_MS = 1; // a create through the Durable Object, measured earlier (bench/RESULTS.md)
const iterations = Number(process.argv[2] ?? 20000);

// The best of 5 rounds: the machine is shared, and the minimum is the least disturbed figure.
function timeUs(fn: () => void, n = iterations): number {
  for (let i = 0; i < Math.min(2000, n); i++) fn(); // warm up the JIT
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < n / 5; i++) fn();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1000 / (n / 5));
  }
  return best;
}

function memoryStore(): WriteStore {
  const objects = new Map<string, KubeObject>();
  let rv = 0;
  return {
    get: (key) => objects.get(key),
    objects: () => objects.values(),
    commit: (_type, key, object) => {
      object.metadata.resourceVersion = String(++rv);
      objects.set(key, object);
      return object;
    },
  };
}

function firstCompileUs(group: string, kind: string): number {
  const start = process.hrtime.bigint();
  kindNode(group, 'v1', kind);
  return Number(process.hrtime.bigint() - start) / 1000;
}

const cases = [
  { name: 'pod', group: '', kind: 'Pod', resource: 'core/pods', obj: pod() },
  { name: 'deployment (20 containers)', group: 'apps', kind: 'Deployment', resource: 'apps/deployments', obj: deployment(20) },
];

console.log(`iterations: ${iterations}`);
for (const c of cases) {
  const compile = firstCompileUs(c.group, c.kind);
  const text = JSON.stringify(c.obj);
  const target = { group: c.group, version: 'v1', kind: c.kind };
  const parse = timeUs(() => JSON.parse(text));
  // Decoding changes its input: each round decodes fresh parsed copies, made before the round's clock starts.
  let decode = Infinity;
  for (let round = 0; round < 10; round++) {
    const copies = Array.from({ length: 1000 }, () => JSON.parse(text));
    const start = process.hrtime.bigint();
    for (const copy of copies) decodeObject(target, copy, { fieldValidation: 'Strict', text });
    if (round > 0) decode = Math.min(decode, Number(process.hrtime.bigint() - start) / 1000 / copies.length);
  }
  const type = lookupGroupResource(c.resource)!;
  const store = memoryStore();
  let n = 0;
  const create = timeUs(() => {
    const body = text.replace(/"name":"(web[^"]*)"/, `"name":"$1-${++n}"`);
    executeWrite(store, { type, now: Date.now(), newUid: () => 'uid', randomSuffix: () => 'abcde', fieldValidation: 'Strict' },
      { verb: 'create', namespace: 'shop', body });
  }, Math.min(iterations, 5000));
  console.log([
    `${c.name}: ${(text.length / 1024).toFixed(1)} KiB, first compile of the kind ${compile.toFixed(0)} µs`,
    `  JSON.parse ${parse.toFixed(1)} µs; decode ${decode.toFixed(1)} µs; in-memory create ${create.toFixed(1)} µs`,
    `  decode = ${((decode / create) * 100).toFixed(1)}% of the in-memory create, ${((decode / (STORE_CREATE_MS * 1000)) * 100).toFixed(1)}% of a ${STORE_CREATE_MS} ms store create`,
  ].join('\n'));
}
