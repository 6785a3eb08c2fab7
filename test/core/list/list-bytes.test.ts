// A list body streamed in pieces (core/list/list-bytes.ts) is byte for byte the body rendered whole (render.ts),
// for Lists, views and Tables, whatever the piece size and wherever a multi-byte character falls.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { listBytes } from '../../../core/list/list-bytes';
import { listText, renderList, renderListBody, type ListBody } from '../../../core/list/render';
import { lookupGroupResource } from '../../../core/registry';
import type { StateEntry } from '../../../core/object-state';

const CONFIGMAPS = lookupGroupResource('core/configmaps')!;
const EVENTS = lookupGroupResource('core/events')!;

function joined(pieces: Iterable<Uint8Array>): { bytes: Uint8Array; sizes: number[] } {
  const list = [...pieces];
  const bytes = new Uint8Array(list.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of list) {
    bytes.set(p, at);
    at += p.length;
  }
  return { bytes, sizes: list.map((p) => p.length) };
}

function entry(namespace: string, name: string, data: Record<string, string>): StateEntry {
  const json = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, resourceVersion: '1' }, data });
  return { key: `${namespace}/${name}`, revision: 1, json, labels: {}, fields: {} };
}

const textBody = (open: string, items: string[], close: string): ListBody => ({ open, count: items.length, item: (i) => items[i], close });

describe('listBytes', () => {
  it('is the UTF-8 of the whole body, in pieces no larger than asked, the last one shorter', () => {
    const items = Array.from({ length: 50 }, (_, i) => entry('ns', `cm-${i}`, { v: 'x'.repeat(i * 7) }));
    const body = renderListBody(CONFIGMAPS, { items, continue: 'tok', remainingItemCount: 3 }, '42', { as: 'List' }, 0);
    const whole = renderList(CONFIGMAPS, { items, continue: 'tok', remainingItemCount: 3 }, '42', { as: 'List' }, 0);
    for (const size of [4, 5, 64, 1000, 1 << 20]) {
      const { bytes, sizes } = joined(listBytes(body, size));
      expect(new TextDecoder().decode(bytes)).toBe(whole);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(size);
      expect(sizes.slice(0, -1).every((n) => n > size - 4)).toBe(true); // each full piece is filled up to its last code point
    }
    expect(JSON.parse(whole)).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '42', continue: 'tok', remainingItemCount: 3 } });
    expect(JSON.parse(whole).items).toHaveLength(50);
  });

  it('an empty list, and one item larger than a piece, spread over several', () => {
    const empty = renderListBody(CONFIGMAPS, { items: [] }, '1', { as: 'List' }, 0);
    expect(new TextDecoder().decode(joined(listBytes(empty, 8)).bytes)).toBe('{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}');
    const big = renderListBody(CONFIGMAPS, { items: [entry('ns', 'big', { v: 'é'.repeat(10_000) })] }, '1', { as: 'List' }, 0);
    const { bytes, sizes } = joined(listBytes(big, 1000));
    expect(new TextDecoder().decode(bytes)).toBe(listText(big));
    expect(sizes.length).toBeGreaterThan(20);
  });

  it('never splits a character, whatever the piece size (property)', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 40 });
    fc.assert(fc.property(text, fc.array(text, { maxLength: 12 }), text, fc.integer({ min: 1, max: 64 }), (open, items, close, size) => {
      const body = textBody(open, items, close);
      const pieces = [...listBytes(body, size)];
      for (const p of pieces) new TextDecoder('utf-8', { fatal: true }).decode(p); // each piece is whole characters
      expect(new TextDecoder().decode(joined(pieces).bytes)).toBe(`${open}${items.join(',')}${close}`);
    }));
  });

  it('a view converts each item as it is encoded: the same body as rendered whole', () => {
    const ev = (i: number) => JSON.stringify({ apiVersion: 'v1', kind: 'Event', metadata: { name: `e${i}`, namespace: 'ns' }, reason: 'R', message: 'm'.repeat(i), source: { component: 'c' }, involvedObject: { kind: 'Pod', name: 'p' } });
    const items: StateEntry[] = Array.from({ length: 30 }, (_, i) => ({ key: `ns/e${i}`, revision: 1, json: ev(i), labels: {}, fields: {} }));
    const format = { as: 'List' as const, view: 'events.k8s.io/v1' };
    const whole = renderList(EVENTS, { items }, '9', format, 0);
    expect(new TextDecoder().decode(joined(listBytes(renderListBody(EVENTS, { items }, '9', format, 0), 100)).bytes)).toBe(whole);
    const parsed = JSON.parse(whole);
    expect(parsed.apiVersion).toBe('events.k8s.io/v1');
    expect(parsed.items[3]).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'mmm', deprecatedSource: { component: 'c' }, regarding: { kind: 'Pod', name: 'p' } });
  });

  it('a Table is one text, in pieces like any other', () => {
    const items = Array.from({ length: 5 }, (_, i) => entry('ns', `cm-${i}`, { a: 'b' }));
    const format = { as: 'Table' as const, includeObject: 'None' as const };
    const whole = renderList(CONFIGMAPS, { items }, '3', format, 0);
    expect(JSON.parse(whole)).toMatchObject({ kind: 'Table', rows: expect.any(Array) });
    expect(new TextDecoder().decode(joined(listBytes(renderListBody(CONFIGMAPS, { items }, '3', format, 0), 16)).bytes)).toBe(whole);
  });
});
