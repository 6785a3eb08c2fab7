// The schema-driven walkers of server-side apply: merge per list type, atomic structs, compare, and the
// owner updates (update takes what changed; removal; ensureNamedFieldsAreMembers).
import { describe, expect, it } from 'vitest';
import { kindNode } from '../../../core/schema/compile';
import { mergeValues, MergeError } from '../../../core/apply/merge';
import { compare } from '../../../core/apply/compare';
import { toFieldSet } from '../../../core/apply/to-field-set';
import { toFieldsV1 } from '../../../core/apply/fields-v1';
import { removeItems } from '../../../core/apply/remove';
import { apply, update, Conflicts, type ManagedFields } from '../../../core/apply/updater';
import { fromFieldsV1 } from '../../../core/apply/fields-v1';

const deployment = kindNode('apps', 'v1', 'Deployment')!;
const pod = kindNode('', 'v1', 'Pod')!;
const cm = kindNode('', 'v1', 'ConfigMap')!;
const podSpec = (containers: unknown[]) => ({ spec: { containers } });

describe('merge', () => {
  it('keyed lists: live-only items stay, shared items follow the config order (SMD interleaving)', () => {
    const c = (name: string, image = 'i') => ({ name, image });
    const merged = mergeValues(pod, podSpec([c('a'), c('b'), c('c')]), podSpec([c('c', 'new'), c('a')])) as any;
    expect(merged.spec.containers).toEqual([c('b'), c('c', 'new'), c('a')]);
  });

  it('set lists merge by value; atomic lists and atomic structs are replaced whole', () => {
    const live = { metadata: { finalizers: ['x', 'y'] }, spec: { selector: { matchLabels: { a: '1', b: '2' } }, template: { spec: { containers: [{ name: 'c', args: ['1', '2'] }] } } } };
    const config = { metadata: { finalizers: ['z', 'x'] }, spec: { selector: { matchLabels: { a: '1' } }, template: { spec: { containers: [{ name: 'c', args: ['3'] }] } } } };
    const merged = mergeValues(deployment, live, config) as any;
    expect(merged.metadata.finalizers).toEqual(['z', 'x', 'y']);
    expect(merged.spec.selector).toEqual({ matchLabels: { a: '1' } });
    expect(merged.spec.template.spec.containers[0].args).toEqual(['3']);
    expect(toFieldsV1(toFieldSet(deployment, config))).toEqual({
      'f:metadata': { 'f:finalizers': { 'v:"x"': {}, 'v:"z"': {} } },
      'f:spec': { 'f:selector': {}, 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:args': {}, 'f:name': {} } } } } },
    });
  });

  it('granular maps merge key by key; the config wins at leaves; live is not modified', () => {
    const live = { data: { a: '1', b: '2' } };
    const merged = mergeValues(cm, live, { data: { b: '3', c: '4' } });
    expect(merged).toEqual({ data: { a: '1', b: '3', c: '4' } });
    expect(live).toEqual({ data: { a: '1', b: '2' } });
  });

  it('rejects duplicate keys in the config with SMD\'s message', () => {
    expect(() => mergeValues(pod, podSpec([]), podSpec([{ name: 'a' }, { name: 'a' }]))).toThrow(new MergeError('duplicate entries for key [name="a"]'));
  });
});

describe('compare and owners', () => {
  it('reports a new container as added itself, and modified leaves', () => {
    const c = compare(pod, podSpec([{ name: 'a', image: 'x' }]), podSpec([{ name: 'a', image: 'y' }, { name: 'b', image: 'z' }]));
    expect(toFieldsV1(c.modified)).toEqual({ 'f:spec': { 'f:containers': { 'k:{"name":"a"}': { 'f:image': {} } } } });
    expect(toFieldsV1(c.added)).toEqual({ 'f:spec': { 'f:containers': { 'k:{"name":"b"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } });
    expect(c.removed.empty()).toBe(true);
  });

  it('update: the writer takes what it changed from others; what it removed leaves every owner', () => {
    const managers: ManagedFields = new Map([
      ['{"manager":"a","operation":"Apply"}', { set: fromFieldsV1({ 'f:data': { 'f:x': {}, 'f:y': {} } }), apiVersion: 'v1', applied: true }],
    ]);
    const out = update({ node: cm, version: 'v1' }, { data: { x: '1', y: '2' } }, { data: { x: '9' } }, managers, 'w');
    // a loses x (changed by w) and y (removed): nothing is left, so its entry goes.
    expect([...out].map(([m, vs]) => [m, toFieldsV1(vs.set)])).toEqual([['w', { 'f:data': { 'f:x': {} } }]]);
    expect(out.has('{"manager":"a","operation":"Apply"}')).toBe(false);
  });

  it('apply: conflicts list every other owner\'s changed path; force strips them; equal values are shared', () => {
    const managers: ManagedFields = new Map([
      ['u', { set: fromFieldsV1({ 'f:data': { 'f:x': {}, 'f:y': {} } }), apiVersion: 'v1', applied: false }],
    ]);
    const u = { node: cm, version: 'v1' };
    try {
      apply(u, { data: { x: '1', y: '2' } }, { data: { x: '2', y: '2' } }, new Map(managers), 'me', false);
      expect.unreachable();
    } catch (e) {
      expect((e as Conflicts).conflicts.map((c) => c.manager)).toEqual(['u']);
    }
    const forced = apply(u, { data: { x: '1', y: '2' } }, { data: { x: '2', y: '2' } }, new Map(managers), 'me', true);
    expect(toFieldsV1(forced.managers.get('u')!.set)).toEqual({ 'f:data': { 'f:y': {} } });
    expect(toFieldsV1(forced.managers.get('me')!.set)).toEqual({ 'f:data': { 'f:x': {}, 'f:y': {} } });
    expect(forced.object).toEqual({ data: { x: '2', y: '2' } });
  });

  it('removeItems drops members and descends into parents; empty maps become null', () => {
    const set = fromFieldsV1({ 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:x': {} } } });
    expect(removeItems(cm, { data: { a: '1', b: '2' }, metadata: { labels: { x: '1' } } }, set)).toEqual({ data: { b: '2' }, metadata: { labels: null } });
  });
});

describe('managed-fields bookkeeping', () => {
  it('folds the oldest Update entries beyond ten into "ancient-changes"', async () => {
    const { recordUpdate } = await import('../../../core/apply/field-manager');
    const ctx = { node: cm, group: '', version: 'v1', kind: 'ConfigMap', subresource: '' as const, hasStatus: false, now: Date.UTC(2026, 0, 1) };
    let live: any = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: {} };
    recordUpdate(ctx, undefined, live, 'm0');
    live.metadata.uid = 'u';
    for (let i = 1; i <= 11; i++) {
      const next = structuredClone(live);
      next.data = { ...next.data, [`k${i}`]: 'v' };
      recordUpdate({ ...ctx, now: ctx.now + i * 1000 }, live, next, `m${i}`);
      next.metadata.uid = 'u';
      live = next;
    }
    const managers = live.metadata.managedFields.map((e: { manager: string }) => e.manager);
    expect(managers).toHaveLength(10);
    expect(managers[0]).toBe('ancient-changes');
    // m0 (which created data: {}), m1 and m2 are the oldest three: one bucket, with m2's time.
    expect(live.metadata.managedFields[0].fieldsV1).toEqual({ 'f:data': { '.': {}, 'f:k1': {}, 'f:k2': {} } });
    expect(live.metadata.managedFields[0].time).toBe('2026-01-01T00:00:02Z');
    expect(managers.slice(1)).toEqual(['m3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9', 'm10', 'm11']);
  });
});

describe('typing an applied config (SMD validate)', () => {
  it('words type errors, missing keys and duplicates as SMD does, several as a list', async () => {
    const { validateValue, formatErrors } = await import('../../../core/apply/validate');
    const svc = kindNode('', 'v1', 'Service')!;
    expect(validateValue(deployment, { spec: { replicas: 'x', paused: 'no' } })).toEqual([
      '.spec.replicas: expected numeric (int or float), got string',
      '.spec.paused: expected boolean, got &{no}',
    ]);
    expect(validateValue(svc, { spec: { ports: [{ name: 'a' }, { port: 1 }, { port: 1 }] } })).toEqual([
      '.spec.ports: element 0: associative list with keys has an element that omits key field "port" (and doesn\'t have default value)',
      '.spec.ports: duplicate entries for key [port=1,protocol="TCP"]',
    ]);
    expect(formatErrors(['a', 'b'])).toBe('errors:\n  a\n  b');
    // Quantities and int-or-strings take numbers or strings.
    expect(validateValue(pod, { spec: { containers: [{ name: 'c', resources: { limits: { cpu: 1 } }, ports: [{ containerPort: 80 }] }] } })).toEqual([]);
  });
});
