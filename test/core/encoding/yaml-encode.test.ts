// YAML answers as kube-apiserver writes them (sigs.k8s.io/yaml JSONToYAML over go-yaml v2), at any depth the request
// gate admits and in linear time (issue 18 class 11): byte-for-byte against go-yaml's own answers, and on the
// inputs that broke the yaml package (stack overflow near 700 levels, a quadratic folding regex).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { goKeyLess, jsonToYaml, resolvesToString, yamlChunks } from '../../../core/encoding/yaml-encode';
import { MAX_JSON_DEPTH } from '../../../core/encoding/json-depth';

const vectors = JSON.parse(readFileSync(new URL('./go-yaml-vectors.json', import.meta.url), 'utf8')) as { cases: [string, string][] };

describe('jsonToYaml', () => {
  it.each(vectors.cases.map((c, i) => [i, c[0], c[1]]))('go-yaml vector %i', (_i, json, yaml) => {
    expect(jsonToYaml(json as string)).toBe(yaml);
  });

  it('writes what kube writes for the usual shapes', () => {
    expect(jsonToYaml('{"metadata":{"creationTimestamp":"2026-01-02T03:04:05Z","name":"a","labels":{}},"items":[],"n":1.5,"z":null}'))
      .toBe('items: []\nmetadata:\n  creationTimestamp: "2026-01-02T03:04:05Z"\n  labels: {}\n  name: a\n"n": 1.5\nz: null\n');
    expect(jsonToYaml('{"data":{"item10":"x","item9":"y","a":"yes","b":"0755","c":"a: b","d":"multi\\nline\\n"}}'))
      .toBe('data:\n  a: "yes"\n  b: "0755"\n  c: \'a: b\'\n  d: |\n    multi\n    line\n  item9: "y"\n  item10: x\n');
  });

  it('orders keys as go-yaml does: digit runs by value, letters after other characters', () => {
    expect(['item10', 'item9', 'a01', 'a1', 'B', 'a', '_', '10', '9'].sort((p, q) => (goKeyLess(p, q) ? -1 : goKeyLess(q, p) ? 1 : 0)))
      .toEqual(['_', '9', '10', 'B', 'a', 'a1', 'a01', 'item9', 'item10']);
  });

  it('quotes exactly the strings go-yaml would read back as something else', () => {
    for (const s of ['yes', 'On', '~', '', '12', '0x1F', '1_000', '.5', '1e3', '2026-01-02', '2026-1-2T3:4:5Z', '-.inf']) expect(resolvesToString(s), s).toBe(false);
    for (const s of ['plain', '<<', '08x', '1e400', '2026-02-30', '2026-01-02T10:00:00', '0x', '.', '1.2.3', 'Infinity']) expect(resolvesToString(s), s).toBe(true);
    // Base 60 reads back as a string here, but go-yaml quotes it for YAML 1.1 readers.
    expect(jsonToYaml('{"a":"12:30"}')).toBe('a: "12:30"\n');
  });

  it('writes nesting as deep as the request gate admits, in a list, and deeper, in bounded pieces', () => {
    let total = 0;
    for (const piece of yamlChunks('{"a":'.repeat(8_000) + '1' + '}'.repeat(8_000), 4096)) {
      expect(piece.length).toBeLessThan(4096 + 2 * 8_000 + 16);
      total += piece.length;
    }
    expect(total).toBe(8_000 * 7_999 + 8_000 * 3 + 2); // level i: 2i spaces, 'a:' and a break; the last holds ' 1'
    for (const depth of [MAX_JSON_DEPTH + 2]) {
      const json = '{"items":[' + '{"f:a":'.repeat(depth - 2) + '[]' + '}'.repeat(depth - 2) + ']}';
      const lines = jsonToYaml(json).split('\n');
      expect(lines).toHaveLength(depth);
      expect(lines.slice(0, 3)).toEqual(['items:', '- f:a:', '    f:a:']);
      expect(lines[depth - 2]).toBe(`${' '.repeat(2 * (depth - 2))}f:a: []`);
      expect(lines[depth - 1]).toBe('');
    }
  });

  it('writes a 1 MB value of many short indented lines in one pass (the yaml package took seconds per 32 KB)', () => {
    // ' \n' rules out plain, single-quoted and literal styles: double-quoted, folded at spaces past column 80.
    const value = 'a'.repeat(100) + '\n '.repeat(500_000) + 'x';
    const yaml = jsonToYaml(JSON.stringify({ k: value }));
    expect(yaml.startsWith(`k: "${'a'.repeat(100)}\\n\n  \\n \\n`)).toBe(true);
    expect(yaml.endsWith('x"\n')).toBe(true);
    expect(parse(yaml)).toEqual({ k: value });
  });
});
