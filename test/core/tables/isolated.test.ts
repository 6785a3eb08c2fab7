// A Table row that throws falls back to null cells (kubectl prints <none>) instead of failing the list.
import { describe, expect, it } from 'vitest';
import { lookupGroupResource } from '../../../core/registry';
import { toTable } from '../../../core/tables/table';
import { toTableIsolated } from '../../../core/tables/isolated';
import { renderList } from '../../../core/list/render';

const PODS = lookupGroupResource('core/pods')!;
const NOW = Date.parse('2026-01-01T00:10:00Z');
const good = { metadata: { name: 'good', namespace: 'ns', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { containers: [{ name: 'c' }] }, status: { phase: 'Running' } };
// initContainers as a number: the pod printer calls .map on it.
const bad = { metadata: { name: 'bad', namespace: 'ns', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { initContainers: 5 }, status: {} };

describe('toTableIsolated', () => {
  it('is toTable when every row renders', () => {
    const errors: unknown[] = [];
    expect(toTableIsolated(PODS, [good], { now: NOW }, (_o, e) => errors.push(e))).toEqual(toTable(PODS, [good], { now: NOW }));
    expect(errors).toEqual([]);
  });

  it('renders a failing row with the cells it can compute and null for the rest, in place', () => {
    expect(() => toTable(PODS, [bad], { now: NOW })).toThrow(TypeError);
    const failed: object[] = [];
    const t = toTableIsolated(PODS, [good, bad, good], { now: NOW }, (o) => failed.push(o));
    expect(failed).toEqual([bad]);
    expect(t.columnDefinitions!.map((c) => c.name)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    const expectedGood = toTable(PODS, [good], { now: NOW }).rows[0];
    expect(t.rows[0]).toEqual(expectedGood);
    expect(t.rows[2]).toEqual(expectedGood);
    expect(t.rows[1]).toEqual({
      cells: ['bad', null, null, null, '10m', '<none>', '<none>', '<none>', '<none>'],
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: bad.metadata },
    });
  });

  it('keeps a Table list a 200 body with every row', () => {
    const items = [good, bad].map((o) => ({ key: `ns/${o.metadata.name}`, revision: 1, json: JSON.stringify(o), labels: {}, fields: {} }));
    const body = JSON.parse(renderList(PODS, { items }, '7', { as: 'Table', includeObject: 'None' }, NOW, () => undefined));
    expect(body.metadata).toEqual({ resourceVersion: '7' });
    expect(body.rows.map((r: { cells: unknown[] }) => r.cells[0])).toEqual(['good', 'bad']);
    expect(body.rows[1].object).toBeNull();
  });
});
