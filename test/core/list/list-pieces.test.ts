// A list body in pieces (core/list/list-pieces.ts) is, joined, the body rendered whole (render.ts): for Lists,
// views and Tables, whatever the piece size; each piece is whole items, no larger than asked unless one item is.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { listPieces } from '../../../core/list/list-pieces';
import { listText, renderList, renderListBody, type ListBody } from '../../../core/list/render';
import { lookupGroupResource } from '../../../core/registry';
import type { StateEntry } from '../../../core/object-state';
import { toTableIsolated } from '../../../core/tables/isolated';
import { viewFor } from '../../../core/views/view';

const CONFIGMAPS = lookupGroupResource('core/configmaps')!;
const EVENTS = lookupGroupResource('core/events')!;

function entry(namespace: string, name: string, data: Record<string, string>): StateEntry {
  const json = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, resourceVersion: '1' }, data });
  return { key: `${namespace}/${name}`, revision: 1, json, labels: {}, fields: {} };
}

const textBody = (open: string, items: string[], close: string): ListBody => ({ open, count: items.length, item: (i) => items[i], close });

describe('listPieces', () => {
  it('joined, is the whole body; pieces no larger than asked, each ending at an item', () => {
    const items = Array.from({ length: 50 }, (_, i) => entry('ns', `cm-${i}`, { v: 'é'.repeat(i * 7) }));
    const page = { items, continue: 'tok', remainingItemCount: 3 };
    const whole = renderList(CONFIGMAPS, page, '42', { as: 'List' }, 0);
    for (const size of [1, 200, 1000, 1 << 20]) {
      const pieces = [...listPieces(renderListBody(CONFIGMAPS, page, '42', { as: 'List' }, 0), size)];
      expect(pieces.join('')).toBe(whole);
      const longest = Math.max(...items.map((e) => e.json.length)) + 1;
      for (const p of pieces) expect(p.length).toBeLessThanOrEqual(Math.max(size, longest + '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"42","continue":"tok","remainingItemCount":3},"items":['.length + 2));
      // every piece but the last ends with an item's closing brace, the last with the list's
      for (const p of pieces.slice(0, -1)) expect(p.endsWith('}') || p.endsWith('[')).toBe(true);
      if (size === 1000) expect(pieces.length).toBeGreaterThan(5);
    }
    expect(JSON.parse(whole)).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '42', continue: 'tok', remainingItemCount: 3 } });
    expect(JSON.parse(whole).items).toHaveLength(50);
  });

  it('an empty list is one piece; one item larger than a piece is a piece of its own', () => {
    const empty = [...listPieces(renderListBody(CONFIGMAPS, { items: [] }, '1', { as: 'List' }, 0), 8)];
    expect(empty).toEqual(['{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}']);
    const big = entry('ns', 'big', { v: 'x'.repeat(10_000) });
    const body = renderListBody(CONFIGMAPS, { items: [entry('ns', 'a', {}), big, entry('ns', 'z', {})] }, '1', { as: 'List' }, 0);
    const pieces = [...listPieces(body, 1000)];
    expect(pieces.join('')).toBe(listText(body));
    expect(pieces).toContain(`,${big.json}`);
  });

  it('any texts and piece sizes (property)', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 40 });
    fc.assert(fc.property(text, fc.array(text, { maxLength: 12 }), text, fc.integer({ min: 1, max: 64 }), (open, items, close, size) => {
      expect([...listPieces(textBody(open, items, close), size)].join('')).toBe(`${open}${items.join(',')}${close}`);
    }));
  });

  it('a view converts each item as its piece is made: the same body as rendered whole', () => {
    const ev = (i: number) => JSON.stringify({ apiVersion: 'v1', kind: 'Event', metadata: { name: `e${i}`, namespace: 'ns' }, reason: 'R', message: 'm'.repeat(i), source: { component: 'c' }, involvedObject: { kind: 'Pod', name: 'p' } });
    const items: StateEntry[] = Array.from({ length: 30 }, (_, i) => ({ key: `ns/e${i}`, revision: 1, json: ev(i), labels: {}, fields: {} }));
    const format = { as: 'List' as const, view: 'events.k8s.io/v1' };
    const whole = renderList(EVENTS, { items }, '9', format, 0);
    expect([...listPieces(renderListBody(EVENTS, { items }, '9', format, 0), 100)].join('')).toBe(whole);
    const parsed = JSON.parse(whole);
    expect(parsed.apiVersion).toBe('events.k8s.io/v1');
    expect(parsed.items[3]).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'mmm', deprecatedSource: { component: 'c' }, regarding: { kind: 'Pod', name: 'p' } });
  });

  it('a small Table is one piece', () => {
    const items = Array.from({ length: 5 }, (_, i) => entry('ns', `cm-${i}`, { a: 'b' }));
    const format = { as: 'Table' as const, includeObject: 'None' as const };
    const whole = renderList(CONFIGMAPS, { items }, '3', format, 0);
    expect(JSON.parse(whole)).toMatchObject({ kind: 'Table', rows: expect.any(Array) });
    expect([...listPieces(renderListBody(CONFIGMAPS, { items }, '3', format, 0))]).toEqual([whole]);
  });
});

describe('a Table in pieces', () => {
  const PODS = lookupGroupResource('core/pods')!;
  const HPAS = lookupGroupResource('autoscaling/horizontalpodautoscalers')!;
  const NOW = Date.parse('2026-01-01T00:10:00Z');
  const pod = (i: number) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${i}`, namespace: 'ns', creationTimestamp: '2026-01-01T00:00:00Z', labels: { n: String(i) } }, spec: { containers: [{ name: 'c', image: 'i' }] }, status: { phase: 'Running', podIP: `10.0.0.${i % 250}` } });
  // initContainers as a number: the pod printer throws, and the row falls back to null cells.
  const bad = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p-bad', namespace: 'ns', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { initContainers: 5 }, status: {} };
  const asEntry = (o: { metadata: { name: string } }): StateEntry => ({ key: `ns/${o.metadata.name}`, revision: 1, json: JSON.stringify(o), labels: {}, fields: {} });
  /** The Table as it was made before pieces: every object parsed, one table, serialized once. */
  const whole = (type: typeof PODS, objects: object[], includeObject: 'None' | 'Metadata' | 'Object', view?: string) => {
    const table = toTableIsolated(type, objects.map((o) => JSON.parse(JSON.stringify(o))), { includeObject, now: NOW, listMeta: { resourceVersion: '5', continue: 'c', remainingItemCount: 2 } }, () => undefined);
    const v = viewFor(type, view);
    return JSON.stringify(v ? v.fromStorage(table) : table);
  };

  it.each(['None', 'Metadata', 'Object'] as const)('rows made in batches are the whole Table byte for byte, a failing row in a later batch included (includeObject=%s)', (includeObject) => {
    const objects: object[] = Array.from({ length: 700 }, (_, i) => pod(i));
    objects.splice(600, 0, bad);
    const failed: object[] = [];
    const body = renderListBody(PODS, { items: objects.map((o) => asEntry(o as { metadata: { name: string } })), continue: 'c', remainingItemCount: 2 }, '5', { as: 'Table', includeObject }, NOW, (o) => failed.push(o));
    const pieces = [...listPieces(body, 50_000)];
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(whole(PODS, objects, includeObject));
    expect(failed).toEqual([bad]);
    expect(JSON.parse(pieces.join('')).rows[600].cells.slice(0, 2)).toEqual(['p-bad', null]);
  });

  it('through a view (events.k8s.io/v1, autoscaling/v1): the same bytes as the whole Table converted at once', () => {
    const events = Array.from({ length: 300 }, (_, i) => ({ apiVersion: 'v1', kind: 'Event', metadata: { name: `e${i}`, namespace: 'ns', creationTimestamp: '2026-01-01T00:00:00Z' }, reason: 'R', message: `m${i}`, type: 'Normal', source: { component: 'c' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'ns' }, count: 1 }));
    const eventsBody = renderListBody(EVENTS, { items: events.map(asEntry), continue: 'c', remainingItemCount: 2 }, '5', { as: 'Table', includeObject: 'Object', view: 'events.k8s.io/v1' }, NOW);
    const eventsText = [...listPieces(eventsBody, 10_000)].join('');
    expect(eventsText).toBe(whole(EVENTS, events, 'Object', 'events.k8s.io/v1'));
    expect(JSON.parse(eventsText).rows[299].object).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'm299' });
    const hpas = Array.from({ length: 300 }, (_, i) => ({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: `h${i}`, namespace: 'ns', creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, minReplicas: 1, maxReplicas: 3, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] }, status: { currentReplicas: 1, desiredReplicas: 1 } }));
    const hpaBody = renderListBody(HPAS, { items: hpas.map(asEntry), continue: 'c', remainingItemCount: 2 }, '5', { as: 'Table', includeObject: 'Object', view: 'autoscaling/v1' }, NOW);
    const hpaText = [...listPieces(hpaBody, 10_000)].join('');
    expect(hpaText).toBe(whole(HPAS, hpas, 'Object', 'autoscaling/v1'));
    expect(JSON.parse(hpaText).rows[0].object).toMatchObject({ apiVersion: 'autoscaling/v1', spec: { targetCPUUtilizationPercentage: 50 } });
  });
});
