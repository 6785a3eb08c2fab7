// YAML request bodies: converted as kube's YAML serializer does, bounded against alias bombs.
import { describe, expect, it } from 'vitest';
import { boundedJson, yamlToJson } from '../../../core/encoding/yaml-decode';
import { StatusError } from '../../../core/status';
import { statusOf } from '../status-of';

describe('yamlToJson', () => {
  it('reads YAML 1.1 scalars as go-yaml v2 does, keeping timestamps as strings', () => {
    const json = yamlToJson('kind: ConfigMap\nmetadata:\n  name: a\nx: yes\nmode: 0755\nt: 2024-01-01T00:00:00Z\nq: "yes"\n', 'ConfigMap');
    expect(JSON.parse(json)).toEqual({ kind: 'ConfigMap', metadata: { name: 'a' }, x: true, mode: 493, t: '2024-01-01T00:00:00Z', q: 'yes' });
  });

  it('reads only the first document of a multi-document body', () => {
    expect(JSON.parse(yamlToJson('metadata: {name: a}\n---\nmetadata: {name: b}\n---\n: : bad', 'ConfigMap'))).toEqual({ metadata: { name: 'a' } });
  });

  it('merge keys and aliases resolve; an empty document is an empty object', () => {
    expect(JSON.parse(yamlToJson('base: &b {a: 1}\nx:\n  <<: *b\n  c: 2\nz: *b', 'ConfigMap'))).toEqual({ base: { a: 1 }, x: { a: 1, c: 2 }, z: { a: 1 } });
    // YAML 1.1: a bare y is a boolean, and sigs.k8s.io/yaml writes a boolean key as its text.
    expect(JSON.parse(yamlToJson('y: 1', 'ConfigMap'))).toEqual({ true: 1 });
    expect(yamlToJson('', 'ConfigMap')).toBe('{}');
    expect(yamlToJson('---\n', 'ConfigMap')).toBe('{}');
  });

  it('a list is 400 with the JSON decoder\'s words', () => {
    const s = statusOf(() => yamlToJson('- a\n- b\n', 'ConfigMap'));
    expect(s).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(s.message).toBe('the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (2d20610a2d20620a)');
    expect(statusOf(() => yamlToJson('just text', 'Pod')).message).toContain('cannot unmarshal string into Go value');
  });

  it('a syntax error is 400', () => {
    const s = statusOf(() => yamlToJson('a: [1\n', 'ConfigMap'));
    expect(s).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(s.message).toBe('the object provided is unrecognized (must be of type ConfigMap): error converting YAML to JSON: yaml: line 2: Flow sequence in block collection must be sufficiently indented and end with a ] (613a205b310a)');
  });

  it('an alias bomb is refused without expanding it', () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const cur = String.fromCharCode(97 + i);
      levels.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]`);
    }
    const s = statusOf(() => yamlToJson(levels.join('\n'), 'ConfigMap'));
    expect(s).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(s.message).toContain('excessive aliasing');
  });

  it('a large value aliased within the alias cap still may not outgrow the body limit', () => {
    const big = 'x'.repeat(1024 * 1024);
    const yaml = `a: &a "${big}"\nb: [${Array(10).fill('*a').join(',')}]\n`;
    const s = statusOf(() => yamlToJson(yaml, 'ConfigMap'));
    expect(s.message).toContain('excessive aliasing');
  });

  it('boundedJson matches JSON.stringify below the limit and throws beyond it', () => {
    const v = { a: [1, 'two', null, { b: true }], c: 'é"' };
    expect(boundedJson(v, 1000)).toBe(JSON.stringify(v));
    expect(() => boundedJson(v, 10)).toThrow();
    expect(() => boundedJson(v, 10)).not.toThrow(StatusError);
  });
});
