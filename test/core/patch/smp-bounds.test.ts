// Tests: strategic merge patch stays linear (n·log n with the order sort) in the list sizes, since
// one store serves every request of a type; and large legal patches still give kube's result.

import { describe, expect, it } from 'vitest';
import { applyStrategicMergePatch } from '../../../core/patch/strategic-merge-patch';
import { opGrowth } from '../op-count';

type Container = { name: string; image?: string };
const containers = (prefix: string, n: number, image = 'old'): Container[] =>
  Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, image }));
const pod = (list: Container[], finalizers: string[] = []) => ({
  kind: 'Pod', metadata: { name: 'p', finalizers }, spec: { containers: list },
});
const smp = (doc: unknown, patch: unknown) => applyStrategicMergePatch(doc, patch, 'Pod') as ReturnType<typeof pod>;

// 4x the input: linear code costs 4x the operations, n·log n a little more, quadratic 16x.
const expectLinear = (what: string, ratio: number) =>
  expect(ratio, `${what}: 4x the input cost ${ratio.toFixed(2)}x the operations`).toBeLessThan(6);

describe('strategic merge patch on large lists', () => {
  it('merges 12,000 patch items into 12,000 containers with kube order and values', () => {
    const n = 12_000;
    const doc = pod(containers('c', n));
    // Every other existing container gets a new image; as many new containers are added.
    const updates = containers('c', n).filter((_, i) => i % 2 === 0).map((c) => ({ ...c, image: 'new' }));
    const added = containers('n', n / 2, 'fresh');
    const out = smp(doc, { spec: { containers: [...updates, ...added] } }).spec.containers;
    expect(out).toHaveLength(n + n / 2);
    // Patch items keep patch order, interleaved before the server-only items that follow them.
    expect(out.slice(0, 3)).toEqual([{ name: 'c0', image: 'new' }, { name: 'c1', image: 'old' }, { name: 'c2', image: 'new' }]);
    // The new ones land after the last patched item, before the server-only item after it.
    expect(out[n - 2]).toEqual({ name: 'c11998', image: 'new' });
    expect(out[n - 1]).toEqual({ name: 'n0', image: 'fresh' });
    expect(out[out.length - 1]).toEqual({ name: 'c11999', image: 'old' });
    expect(out.filter((c) => c.image === 'new')).toHaveLength(n / 2);
  });

  it('deletes by merge key and keeps the slice-tail order kube gets with $setElementOrder', () => {
    // Go deletes in place; the original slice header then sees the shifted array (LiveList).
    const doc = pod(containers('c', 5));
    const patch = {
      spec: {
        '$setElementOrder/containers': [{ name: 'c4' }, { name: 'x' }],
        containers: [{ name: 'c1', $patch: 'delete' }, { name: 'c3', $patch: 'delete' }, { name: 'x', image: 'new' }],
      },
    };
    expect(smp(doc, patch).spec.containers.map((c) => c.name)).toEqual(['c0', 'c2', 'c4', 'x']);
  });

  it('merges, deletes, orders and edits primitive lists in n·log n', () => {
    const merge = (n: number) => {
      const doc = pod(containers('c', n));
      const patch = { spec: { containers: containers('c', n, 'new').reverse() } };
      return () => void smp(doc, patch);
    };
    const deletes = (n: number) => {
      const doc = pod(containers('c', n));
      const patch = { spec: { containers: containers('c', n).filter((_, i) => i % 2).map((c) => ({ name: c.name, $patch: 'delete' })) } };
      return () => void smp(doc, patch);
    };
    const ordered = (n: number) => {
      const doc = pod(containers('c', n));
      const order = containers('c', n).map((c) => ({ name: c.name })).reverse();
      const patch = { spec: { '$setElementOrder/containers': order, containers: containers('c', n, 'new').reverse() } };
      return () => void smp(doc, patch);
    };
    const primitives = (n: number) => {
      const names = Array.from({ length: n }, (_, i) => `f${i}`);
      const doc = pod([], names);
      const patch = { metadata: { '$deleteFromPrimitiveList/finalizers': names.filter((_, i) => i % 2), finalizers: names.map((f) => `${f}x`) } };
      return () => void smp(doc, patch);
    };
    expectLinear('merge by key', opGrowth(merge, 1_000));
    expectLinear('$patch: delete', opGrowth(deletes, 1_000));
    expectLinear('$setElementOrder', opGrowth(ordered, 1_000));
    expectLinear('primitive lists', opGrowth(primitives, 1_000));
  });
});
