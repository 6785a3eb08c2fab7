import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import {
  desiredEndpoints, MANAGED_BY_LABEL, planSlices, resolveTargetPort, SERVICE_NAME_LABEL, slicePorts, type Slice,
} from '../../controllers/endpoint-slicing';
import { endpointsSubsets } from '../../controllers/endpoints-subsets';

const svc = (ports: unknown[] = [{ port: 80, protocol: 'TCP', targetPort: 8080 }], extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1', kind: 'Service',
  metadata: { name: 'web', namespace: 'ns', uid: 'svc-uid', labels: { app: 'web' } },
  spec: { selector: { app: 'web' }, clusterIP: '10.96.0.10', ports, ...extra },
});

function pod(i: number, o: { ready?: boolean; deleting?: boolean; phase?: string; ip?: string | null; node?: string; ports?: unknown[] } = {}): KubeObject {
  const ip = o.ip === null ? undefined : (o.ip ?? `10.244.1.${i}`);
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: `web-${i}`, namespace: 'ns', uid: `uid-${i}`, labels: { app: 'web' }, ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { nodeName: o.node ?? 'node-1', containers: [{ name: 'c', ports: o.ports ?? [{ name: 'http', containerPort: 8080 }] }] },
    status: {
      phase: o.phase ?? 'Running', ...(ip ? { podIP: ip, podIPs: [{ ip }] } : {}),
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
    },
  };
}

const zones = (n: string) => (n === 'node-1' ? 'zone-a' : undefined);
const plan = (s: KubeObject, pods: KubeObject[], existing: Slice[] = [], max = 100) =>
  planSlices(s, existing, desiredEndpoints(s, pods, 'IPv4', zones), 'IPv4', max);

/** Applies a plan as the API would (names for creates, resourceVersions bumped). */
function applyPlan(existing: Slice[], p: ReturnType<typeof plan>): Slice[] {
  const byName = new Map(existing.map((s) => [s.metadata.name!, s]));
  for (const d of p.delete) byName.delete(d.metadata.name!);
  for (const u of p.update) byName.set(u.metadata.name!, u);
  let n = byName.size;
  for (const c of p.create) {
    const name = `web-${++n}x`;
    byName.set(name, { ...c, metadata: { ...c.metadata, name, uid: name } });
  }
  return [...byName.values()];
}

describe('endpoint slicing', () => {
  it('resolves targetPort: number, numeric string, named container port (per protocol), unresolvable', () => {
    const p = pod(1, { ports: [{ name: 'http', containerPort: 8080 }, { name: 'dns', containerPort: 53, protocol: 'UDP' }] });
    expect(resolveTargetPort(p, { port: 80, targetPort: 9090 })).toBe(9090);
    expect(resolveTargetPort(p, { port: 80, targetPort: '9091' })).toBe(9091);
    expect(resolveTargetPort(p, { port: 80 })).toBe(80);
    expect(resolveTargetPort(p, { port: 80, targetPort: 'http' })).toBe(8080);
    expect(resolveTargetPort(p, { port: 53, targetPort: 'dns', protocol: 'UDP' })).toBe(53);
    expect(resolveTargetPort(p, { port: 53, targetPort: 'dns', protocol: 'TCP' })).toBeUndefined();
    expect(slicePorts(svc([{ port: 80, targetPort: 'http' }, { name: 'x', port: 81, targetPort: 'nope' }]), p)).toEqual([{ name: '', port: 8080, protocol: 'TCP' }]);
  });

  it('builds endpoints with readiness, serving and terminating conditions, node, zone and targetRef', () => {
    const s = svc();
    const p = plan(s, [pod(1), pod(2, { ready: false }), pod(3, { deleting: true }), pod(4, { phase: 'Succeeded' }), pod(5, { ip: null }), pod(6, { node: 'node-2' })]);
    expect(p.update).toEqual([]);
    expect(p.delete).toEqual([]);
    expect(p.create).toHaveLength(1);
    const slice = p.create[0];
    expect(slice.metadata).toEqual({
      generateName: 'web-', namespace: 'ns',
      labels: { app: 'web', [SERVICE_NAME_LABEL]: 'web', [MANAGED_BY_LABEL]: 'endpointslice-controller.k8s.io' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'svc-uid', controller: true, blockOwnerDeletion: true }],
    });
    expect(slice.addressType).toBe('IPv4');
    expect(slice.ports).toEqual([{ name: '', port: 8080, protocol: 'TCP' }]);
    const byName = Object.fromEntries(slice.endpoints!.map((e) => [e.targetRef.name, e]));
    expect(Object.keys(byName).sort()).toEqual(['web-1', 'web-2', 'web-3', 'web-6']);
    expect(byName['web-1']).toEqual({
      addresses: ['10.244.1.1'], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'node-1', zone: 'zone-a',
      targetRef: { kind: 'Pod', namespace: 'ns', name: 'web-1', uid: 'uid-1' },
    });
    expect(byName['web-2'].conditions).toEqual({ ready: false, serving: false, terminating: false });
    expect(byName['web-3'].conditions).toEqual({ ready: false, serving: true, terminating: true });
    expect(byName['web-6'].zone).toBeUndefined();
  });

  it('packs at most 100 endpoints per slice and fills the fullest slice first', () => {
    const s = svc();
    const pods = Array.from({ length: 250 }, (_, i) => pod(i, { ip: `10.244.${1 + Math.floor(i / 200)}.${i % 200}` }));
    const first = plan(s, pods);
    expect(first.create.map((c) => c.endpoints!.length)).toEqual([100, 100, 50]);
    let slices = applyPlan([], first);
    // Nothing changed: no writes at all.
    expect(plan(s, pods, slices)).toEqual({ create: [], update: [], delete: [] });
    // 30 more pods: they go to the slice with room (50 → 80), no new slice.
    const more = [...pods, ...Array.from({ length: 30 }, (_, i) => pod(1000 + i, { ip: `10.245.0.${i}` }))];
    const grow = plan(s, more, slices);
    expect(grow.create).toEqual([]);
    expect(grow.delete).toEqual([]);
    expect(grow.update.map((u) => u.endpoints!.length)).toEqual([80]);
    slices = applyPlan(slices, grow);
    expect(slices.reduce((n, x) => n + x.endpoints!.length, 0)).toBe(280);
  });

  it('updates only the slice whose endpoint changed, and shrinks to a placeholder when no pod is left', () => {
    const s = svc();
    const pods = Array.from({ length: 150 }, (_, i) => pod(i, { ip: `10.244.0.${i}` }));
    let slices = applyPlan([], plan(s, pods));
    const changed = pods.map((p, i) => (i === 120 ? pod(i, { ip: `10.244.0.${i}`, ready: false }) : p));
    const p1 = plan(s, changed, slices);
    expect(p1.create).toEqual([]);
    expect(p1.delete).toEqual([]);
    expect(p1.update).toHaveLength(1);
    expect(p1.update[0].endpoints!.find((e) => e.targetRef.name === 'web-120')!.conditions.ready).toBe(false);
    slices = applyPlan(slices, p1);
    const none = plan(s, [], slices);
    expect(none.create).toEqual([]);
    expect(none.delete).toHaveLength(1);
    expect(none.update).toHaveLength(1);
    expect(none.update[0].endpoints).toEqual([]);
    expect(none.update[0].ports).toEqual([]);
    slices = applyPlan(slices, none);
    expect(plan(s, [], slices)).toEqual({ create: [], update: [], delete: [] });
  });

  it('groups pods whose named targetPort resolves differently into separate slices', () => {
    const s = svc([{ name: 'web', port: 80, targetPort: 'http' }]);
    const p = plan(s, [pod(1), pod(2, { ports: [{ name: 'http', containerPort: 9000 }] })]);
    expect(p.create.map((c) => [c.ports, c.endpoints!.map((e) => e.targetRef.name)])).toEqual(expect.arrayContaining([
      [[{ name: 'web', port: 8080, protocol: 'TCP' }], ['web-1']],
      [[{ name: 'web', port: 9000, protocol: 'TCP' }], ['web-2']],
    ]));
  });

  it('legacy Endpoints: ready and not-ready addresses, terminating pods left out, sorted by IP', () => {
    const subsets = endpointsSubsets(svc([{ name: 'http', port: 80, targetPort: 8080 }]), [pod(3), pod(1), pod(2, { ready: false }), pod(4, { deleting: true })]);
    expect(subsets).toEqual([{
      addresses: [
        { ip: '10.244.1.1', nodeName: 'node-1', targetRef: { kind: 'Pod', namespace: 'ns', name: 'web-1', uid: 'uid-1' } },
        { ip: '10.244.1.3', nodeName: 'node-1', targetRef: { kind: 'Pod', namespace: 'ns', name: 'web-3', uid: 'uid-3' } },
      ],
      notReadyAddresses: [{ ip: '10.244.1.2', nodeName: 'node-1', targetRef: { kind: 'Pod', namespace: 'ns', name: 'web-2', uid: 'uid-2' } }],
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    }]);
  });
});
