import { describe, expect, it } from 'vitest';
import { clientKey, mayChooseReplica, replicaFor } from '../../worker/replicas';
import { fnv1a32 as fnv1a } from '../../core/hash';
import { settingsWith } from '../../core/settings';
import { lookupGroupResource } from '../../core/registry';
import type { Bindings } from '../../worker/env';

const PODS = lookupGroupResource('core/pods')!;
const bindings = { REPLICA: { idFromName: (n: string) => n, get: (id: string) => ({ id }) } } as unknown as Bindings;
const settings = (perLocation: number, locations = ['enam', 'weur']) => settingsWith({ replicaLocations: locations, replicasPerLocation: perLocation });
const req = (headers: Record<string, string> = {}) => new Request('https://x/', { headers });

describe('replicaFor', () => {
  it('spreads clients over every replica of a location, each client always on the same one', () => {
    const seen = new Map<string, number>();
    for (let i = 0; i < 200; i++) {
      const key = clientKey(`user-${i}`, req());
      const name = replicaFor(bindings, settings(4), PODS, req(), key, false)!.name;
      expect(replicaFor(bindings, settings(4), PODS, req(), key, false)!.name).toBe(name);
      seen.set(name, (seen.get(name) ?? 0) + 1);
    }
    expect([...seen.keys()].sort()).toEqual(['core/pods@enam#0', 'core/pods@enam#1', 'core/pods@enam#2', 'core/pods@enam#3']);
    for (const n of seen.values()) expect(n).toBeGreaterThan(25);
  });

  it('tells clients of one user apart by address', () => {
    const names = new Set(Array.from({ length: 50 }, (_, i) => {
      const r = req({ 'cf-connecting-ip': `10.0.0.${i}` });
      return replicaFor(bindings, settings(4), PODS, r, clientKey('shared', r), false)!.name;
    }));
    expect(names.size).toBe(4);
  });

  it('honours the location and index overrides of system:masters, and ignores an empty index', () => {
    expect(replicaFor(bindings, settings(2), PODS, req({ 'x-edgeplane-location': 'weur', 'x-edgeplane-replica-index': '3' }), 'k', true)!.name).toBe('core/pods@weur#1');
    expect(replicaFor(bindings, settings(2), PODS, req({ 'x-edgeplane-replica-index': '' }), 'k', true)!.name).toBe(`core/pods@enam#${fnv1a('k') % 2}`);
    expect(replicaFor(bindings, settings(2), PODS, req({ 'x-edgeplane-location': 'store' }), 'k', true)).toBeUndefined();
    expect(mayChooseReplica({ username: 'admin', groups: ['system:masters'] })).toBe(true);
    // The cluster's own loops (the garbage collector's metadata informers read at the store).
    expect(mayChooseReplica({ username: 'system:serviceaccount:kube-system:generic-garbage-collector', groups: ['system:serviceaccounts', 'system:authenticated'] })).toBe(true);
  });

  it('ignores every override from anyone else: headers and query parameters alike', () => {
    const own = `core/pods@enam#${fnv1a('k') % 2}`;
    const other = `core/pods@enam#${(fnv1a('k') + 1) % 2}`;
    const index = other.slice(-1);
    expect(replicaFor(bindings, settings(2), PODS, req({ 'x-edgeplane-location': 'enam', 'x-edgeplane-replica-index': index }), 'k', false)!.name).toBe(own);
    expect(replicaFor(bindings, settings(2), PODS, new Request(`https://x/?edgeplaneLocation=weur&edgeplaneReplica=${index}`), 'k', false)!.name).toBe(own);
    expect(replicaFor(bindings, settings(2), PODS, req({ 'x-edgeplane-location': 'store' }), 'k', false)!.name).toBe(own);
    expect(mayChooseReplica({ username: 'system:serviceaccount:t:x', groups: ['system:serviceaccounts', 'system:authenticated'] })).toBe(false);
  });

  it('places every ServiceAccount of a namespace like one tenant, however it names them', () => {
    const names = new Set(Array.from({ length: 50 }, (_, i) => replicaFor(bindings, settings(4), PODS, req(), clientKey(`system:serviceaccount:tenant:minted-${i}`, req()), false)!.name));
    expect(names.size).toBe(1);
  });

  it('is off without locations', () => {
    expect(replicaFor(bindings, settings(2, []), PODS, req(), 'k', true)).toBeUndefined();
  });
});
