import { describe, expect, it } from 'vitest';
import { kindNode } from '../../../core/schema/compile';
import { toFieldSet } from '../../../core/apply/to-field-set';
import { fromFieldsV1, readFieldsV1, toFieldsV1 } from '../../../core/apply/fields-v1';
import { FieldSet } from '../../../core/apply/field-set';
import { compareElements, fieldElement as f, keyElement, valueElement, pathString } from '../../../core/apply/path-element';

const deployment = kindNode('apps', 'v1', 'Deployment')!;
const service = kindNode('', 'v1', 'Service')!;
const configMap = kindNode('', 'v1', 'ConfigMap')!;

describe('FieldsV1', () => {
  it('writes the field set of a config exactly as kube does', () => {
    const set = toFieldSet(deployment, {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1', ports: [{ containerPort: 80 }] }] } },
      },
    });
    expect(JSON.stringify(toFieldsV1(set))).toBe(
      '{"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:labels":{"f:app":{}},"f:name":{}},"f:spec":{"f:selector":{},'
      + '"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},'
      + '"f:image":{},"f:name":{},"f:ports":{"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{}}}}}}}}}',
    );
  });

  it('keys Service ports by port and protocol, sorted numerically', () => {
    const set = toFieldSet(service, { spec: { ports: [{ port: 8080, protocol: 'UDP' }, { port: 443 }] } });
    expect(toFieldsV1(set)).toEqual({
      'f:spec': { 'f:ports': {
        'k:{"port":443,"protocol":"TCP"}': { '.': {}, 'f:port': {} },
        'k:{"port":8080,"protocol":"UDP"}': { '.': {}, 'f:port': {}, 'f:protocol': {} },
      } },
    });
    expect(Object.keys(toFieldsV1(set)['f:spec']['f:ports'])).toEqual(['k:{"port":443,"protocol":"TCP"}', 'k:{"port":8080,"protocol":"UDP"}']);
  });

  it('owns map keys, null and {} values, and set items by value', () => {
    const set = toFieldSet(deployment, { metadata: { finalizers: ['a/b', 'c'], annotations: {} }, spec: { paused: null } });
    expect(toFieldsV1(set)).toEqual({
      'f:metadata': { 'f:annotations': {}, 'f:finalizers': { 'v:"a/b"': {}, 'v:"c"': {} } },
      'f:spec': { 'f:paused': {} },
    });
  });

  it('orders f: before k: before v: before i:, and escapes HTML characters inside keys as Go does', () => {
    const s = FieldSet.of([f('z')], [valueElement('<x>')], [keyElement([['b', 1], ['a', 'q']])], [f('a')]);
    expect(JSON.stringify(toFieldsV1(s))).toBe('{"f:a":{},"f:z":{},"k:{\\"a\\":\\"q\\",\\"b\\":1}":{},"v:\\"\\\\u003cx\\\\u003e\\"":{}}');
  });

  it('round-trips: decode(encode(set)) equals set, and encode(decode(json)) equals json', () => {
    const json = {
      'f:data': { '.': {}, 'f:key': {} },
      'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} }, 'f:labels': { 'f:app': {} } },
      'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } }, 'f:finalizers': { 'v:"x"': {} } },
    };
    const set = fromFieldsV1(json);
    expect(JSON.stringify(toFieldsV1(set))).toBe(JSON.stringify(json));
    expect(set.has([f('data')])).toBe(true);
    expect(set.has([f('spec'), f('containers'), keyElement([['name', 'nginx']]), f('image')])).toBe(true);
    expect(set.has([f('spec')])).toBe(false);
    expect(fromFieldsV1(toFieldsV1(set)).equals(set)).toBe(true);
  });

  it('skips unknown element types and rejects malformed keys', () => {
    expect(toFieldsV1(fromFieldsV1({ 'x:y': {}, 'f:a': {} }))).toEqual({ 'f:a': {} });
    expect(() => fromFieldsV1({ 'k:{bad': {} })).toThrow(/parsing key as path element/);
  });

  it('prints paths as SMD does', () => {
    expect(pathString([f('spec'), f('containers'), keyElement([['name', 'nginx']]), f('image')])).toBe('.spec.containers[name="nginx"].image');
    expect(pathString([f('spec'), f('ports'), keyElement([['protocol', 'TCP'], ['containerPort', 80]])])).toBe('.spec.ports[containerPort=80,protocol="TCP"]');
    expect(pathString([f('metadata'), f('finalizers'), valueElement('x')])).toBe('.metadata.finalizers[="x"]');
  });

  it('takes a ConfigMap data key as a map key, and builds sets linearly', () => {
    const data: Record<string, string> = {};
    for (let i = 0; i < 20000; i++) data[`k${i}`] = 'v';
    const start = performance.now();
    const set = toFieldSet(configMap, { data });
    const fields = toFieldsV1(set);
    expect(Object.keys(fields['f:data'])).toHaveLength(20000);
    expect(performance.now() - start).toBeLessThan(2000);
  });
});

describe('FieldsV1 read back', () => {
  it('knows when a value is exactly what writing its set gives (so it can be written again as is)', () => {
    const canonical = [
      {},
      { 'f:data': { 'f:a': {}, 'f:b': {} } },
      { 'f:spec': { 'f:containers': { 'k:{"name":"a"}': { '.': {}, 'f:image': {} }, 'k:{"name":"b"}': {} } } },
      { 'f:metadata': { 'f:finalizers': { '.': {}, 'v:"x"': {} } } },
    ];
    for (const v of canonical) {
      const read = readFieldsV1(v);
      expect(read.canonical).toBe(true);
      expect(toFieldsV1(read.set)).toEqual(v);
    }
    const other = [
      { 'f:data': { 'f:b': {}, 'f:a': {} } }, // out of order
      { 'f:data': { '.': {} } }, // written {}
      { 'f:data': { 'f:a': {}, '.': {} } }, // "." not first
      { '.': {}, 'f:data': {} }, // "." at the top
      { 'f:spec': { 'k:{"b":1,"a":2}': {} } }, // key fields unsorted
      { 'f:data': {}, 'z:unknown': {} }, // skipped element type
    ];
    for (const v of other) {
      const read = readFieldsV1(v);
      expect(read.canonical).toBe(false);
      expect(fromFieldsV1(v).equals(read.set)).toBe(true);
    }
  });

  it('orders field names by UTF-8 bytes, as Go does, also around surrogate pairs', () => {
    const names = ['b', 'a', '\uffff', '\u{10000}', '\ue000', 'é', 'ab', '\ud7ff'];
    const sorted = names.map((n) => f(n)).sort(compareElements).map((e) => (e.kind === 0 ? e.name : ''));
    const utf8 = [...names].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect(sorted).toEqual(utf8);
  });
});

describe('goJson', () => {
  it('writes strings as Go\'s encoder does, escaping HTML characters and separators', async () => {
    const { goJson } = await import('../../../core/apply/path-element');
    for (const s of ['plain', '', 'a"b', 'back\\slash', 'tab\t', '<a>&', '\u2028\u2029', 'é', '\u{1F600}', '\ud800', '\u007f']) {
      const expected = JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
      expect(goJson(s)).toBe(expected);
    }
  });
});
