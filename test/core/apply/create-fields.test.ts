// A create's managed fields (core/apply/updater.ts update with no previous set) take the comparison's own `added`
// set instead of a copy: the same fieldsV1, byte for byte, as the general path (an empty set minus removed, plus
// modified, plus added) over many generated objects of several kinds, against kube's zero objects.
import { describe, expect, it } from 'vitest';
import { kindNode } from '../../../core/schema/compile';
import { compare, filterComparison } from '../../../core/apply/compare';
import { FieldSet } from '../../../core/apply/field-set';
import { fieldElement } from '../../../core/apply/path-element';
import { toFieldsV1 } from '../../../core/apply/fields-v1';
import { update } from '../../../core/apply/updater';
import { zeroObject } from '../../../core/apply/zero-objects';

let seed = 11; // mulberry32
const rand = (n: number) => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) % n;
};
const some = <T>(f: (i: number) => T, max: number): T[] => Array.from({ length: rand(max + 1) }, (_, i) => f(i));
const maybe = <T>(v: T): T | undefined => (rand(2) ? v : undefined);
const strings = (prefix: string, max: number) => Object.fromEntries(some((i) => [`${prefix}${i}`, `v${rand(3)}`], max));

function container(i: number) {
  return {
    name: `c${i}`, image: maybe('nginx:1.27'), command: maybe(some((j) => `arg${j}`, 3)),
    ports: maybe(some((j) => ({ containerPort: 8000 + j, protocol: maybe('TCP'), name: maybe(`p${j}`) }), 3)),
    env: maybe(some((j) => ({ name: `E${j}`, value: maybe(`x${j}`) }), 3)),
    resources: maybe({ requests: maybe({ cpu: '10m', memory: maybe('16Mi') }), limits: maybe({ cpu: '1' }) }),
    volumeMounts: maybe(some((j) => ({ name: `v${j}`, mountPath: `/m${j}` }), 2)),
  };
}

function meta(kind: string) {
  return { name: `x-${kind.toLowerCase()}-${rand(1000)}`, namespace: maybe('ns'), labels: maybe(strings('l', 3)), annotations: maybe(strings('a', 2)), finalizers: maybe(some((j) => `f${j}`, 2)) };
}

const KINDS: Record<string, [group: string, version: string, hasStatus: boolean, make: () => Record<string, unknown>]> = {
  Pod: ['', 'v1', true, () => ({
    metadata: meta('Pod'),
    spec: {
      containers: some(container, 3), initContainers: maybe(some(container, 2)), nodeName: maybe('n1'), restartPolicy: maybe('Always'),
      volumes: maybe(some((j) => ({ name: `v${j}`, emptyDir: maybe({}) }), 2)), tolerations: maybe(some((j) => ({ key: `k${j}`, operator: 'Exists' }), 2)),
    },
    status: maybe({ phase: 'Pending', conditions: maybe([{ type: 'Ready', status: 'False' }]) }),
  })],
  ConfigMap: ['', 'v1', false, () => ({ metadata: meta('ConfigMap'), data: maybe(strings('k', 4)), binaryData: maybe({ b: 'AAAA' }), immutable: maybe(true) })],
  Service: ['', 'v1', true, () => ({
    metadata: meta('Service'),
    spec: { selector: maybe(strings('s', 2)), ports: maybe(some((j) => ({ port: 80 + j, protocol: maybe('TCP'), targetPort: maybe(8080) }), 3)), type: maybe('ClusterIP') },
  })],
  Deployment: ['apps', 'v1', true, () => ({
    metadata: meta('Deployment'),
    spec: {
      replicas: maybe(rand(5)), selector: { matchLabels: strings('m', 2) },
      template: { metadata: maybe({ labels: maybe(strings('t', 2)) }), spec: { containers: some(container, 2) } },
      strategy: maybe({ type: 'RollingUpdate', rollingUpdate: maybe({ maxSurge: '25%' }) }),
    },
    status: maybe({ replicas: 1 }),
  })],
};

// The reset filter of a type with /status (field-manager.ts resetFilter): status is never owned by the main resource.
const STATUS = FieldSet.of([fieldElement('status')]);
const withoutStatus = (s: FieldSet) => (s.nodes.has('f:status') ? s.recursiveDifference(STATUS) : s);

describe('managed fields of a create', () => {
  it('are those of the general path on many generated objects', () => {
    let compared = 0;
    for (const [kind, [group, version, hasStatus, make]] of Object.entries(KINDS)) {
      const apiVersion = group ? `${group}/${version}` : version;
      const node = kindNode(group, version, kind)!;
      const u = { node, version: apiVersion, filter: hasStatus ? withoutStatus : undefined };
      for (let i = 0; i < 300; i++) {
        const obj = JSON.parse(JSON.stringify({ apiVersion, kind, ...make() })); // undefined fields dropped, as on the wire
        const zero = zeroObject(apiVersion, kind);
        const cmp = filterComparison(compare(node, zero, obj), u.filter);
        let general = new FieldSet().difference(cmp.removed);
        general.addAll(cmp.modified);
        general.addAll(cmp.added);
        if (u.filter) general = u.filter(general);
        const got = update(u, zero, obj, new Map(), 'm').get('m')?.set;
        expect(JSON.stringify(got ? toFieldsV1(got) : undefined)).toBe(JSON.stringify(general.empty() ? undefined : toFieldsV1(general)));
        compared++;
      }
    }
    expect(compared).toBe(1200);
  });
});
