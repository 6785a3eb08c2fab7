// The apiserver's own objects (core/bootstrap.ts): every one is created through the ordinary write path (defaults,
// validation, the Service's address allocation) as kube-apiserver's bootstrap writes them.
import { describe, expect, it } from 'vitest';
import { bootstrapWrites, SEEDS } from '../../core/bootstrap';
import { executeWrite } from '../../core/writes';
import { lookupGroupResource } from '../../core/registry';
import { ServiceAllocations } from '../../core/admission/service-ranges';
import { memoryStore } from './memory-store';

describe('bootstrap objects', () => {
  it.each(Object.keys(SEEDS).filter((s) => !s.startsWith('rbac')))('%s: created when missing, valid, left alone once there', (store) => {
    const type = lookupGroupResource(store)!;
    const { store: s } = memoryStore();
    const env = { type, now: Date.UTC(2026, 0, 1), newUid: () => 'uid', randomSuffix: () => 'abcde' };
    const writes = bootstrapWrites(store, () => undefined);
    expect(writes.length).toBe(SEEDS[store]!.length);
    for (const w of writes) {
      const res = executeWrite({ ...s, serviceAllocations: new ServiceAllocations() }, env, w as never);
      expect(res.code, JSON.stringify(res.body)).toBe(201);
    }
    // What was just created is left alone (kube's flowcontrol ensurer compares specs, so the objects themselves).
    const created = new Map(writes.map((w) => [(JSON.parse((w as { body: string }).body) as { metadata: { name: string } }).metadata.name, JSON.parse((w as { body: string }).body)]));
    expect(bootstrapWrites(store, (_ns, name) => created.get(name) ?? {})).toEqual([]);
  });

  it('the kubernetes Service sits on 10.96.0.1:443 and its endpoints on the apiserver address', () => {
    const [svc] = SEEDS['core/services'] as { spec: { clusterIP: string; ports: { port: number; targetPort: number }[] } }[];
    expect(svc!.spec.clusterIP).toBe('10.96.0.1');
    expect(svc!.spec.ports[0]).toMatchObject({ port: 443, targetPort: 6443 });
  });
});
