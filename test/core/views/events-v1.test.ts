import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { EVENTS_V1_VIEW as view, toCoreEvent, toEventsV1 } from '../../../core/views/events-v1';

const core = {
  apiVersion: 'v1', kind: 'Event', metadata: { name: 'p.1', namespace: 'ns' },
  involvedObject: { kind: 'Pod', name: 'p' }, reason: 'Started', message: 'Started container', source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:01:00Z', count: 2, type: 'Normal',
  eventTime: null, reportingComponent: 'kubelet', reportingInstance: 'node-1',
};
const v1 = {
  apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'p.1', namespace: 'ns' },
  regarding: { kind: 'Pod', name: 'p' }, reason: 'Started', note: 'Started container', deprecatedSource: { component: 'kubelet', host: 'node-1' },
  deprecatedFirstTimestamp: '2026-01-01T00:00:00Z', deprecatedLastTimestamp: '2026-01-01T00:01:00Z', deprecatedCount: 2, type: 'Normal',
  eventTime: null, reportingController: 'kubelet', reportingInstance: 'node-1',
};

describe('events.k8s.io/v1 view of core/v1 events', () => {
  it('converts both ways, field for field', () => {
    expect(toEventsV1(core)).toEqual(v1);
    expect(toCoreEvent(v1)).toEqual(core);
    expect(view.toStorage(structuredClone(v1))).toEqual(core);
    // Not an Event of the other version: unchanged (Status replies, wrong apiVersion for the store to refuse).
    const status = { kind: 'Status', apiVersion: 'v1', code: 404 };
    expect(toEventsV1(status)).toBe(status);
    expect(view.fromStorage(status)).toBe(status);
  });

  it('rewrites lists, Table rows and watch frames', () => {
    const list = view.fromStorage({ kind: 'EventList', apiVersion: 'v1', metadata: {}, items: [core] });
    expect(list).toEqual({ kind: 'EventList', apiVersion: 'events.k8s.io/v1', metadata: {}, items: [v1] });
    const table = view.fromStorage({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', rows: [{ cells: [], object: core }] }) as { rows: { object: unknown }[] };
    expect(table.rows[0].object).toEqual(v1);
    expect(JSON.parse(view.frame(`${JSON.stringify({ type: 'MODIFIED', object: core })}\n`))).toEqual({ type: 'MODIFIED', object: v1 });
    const bookmark = JSON.parse(view.frame(`${JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Event', apiVersion: 'v1', metadata: { resourceVersion: '9' } } })}\n`));
    expect(bookmark.object.apiVersion).toBe('events.k8s.io/v1');
  });

  it('renames patch fields: merge patches by key, JSON patches by path', () => {
    expect(JSON.parse(view.patchToStorage(JSON.stringify({ note: 'x', deprecatedCount: 3, series: { count: 2 } })))).toEqual({ message: 'x', count: 3, series: { count: 2 } });
    expect(JSON.parse(view.patchToStorage(JSON.stringify([{ op: 'replace', path: '/note', value: 'y' }, { op: 'add', path: '/regarding/name', value: 'z' }]))))
      .toEqual([{ op: 'replace', path: '/message', value: 'y' }, { op: 'add', path: '/involvedObject/name', value: 'z' }]);
  });

  it("shows a stored Event's text as events.k8s.io/v1 without parsing it, as the parsed conversion would", () => {
    expect(JSON.parse(view.json(JSON.stringify(core)))).toEqual(v1);
    expect(view.json(JSON.stringify(core))).toBe(JSON.stringify(toEventsV1(core)));
    // Only top-level members: a nested "message" or "apiVersion":"v1" (an involvedObject's) stays, strings are skipped whole.
    const nested = { ...core, involvedObject: { apiVersion: 'v1', kind: 'Pod', message: '"count": 1, "apiVersion":"v1"' }, related: [{ message: 'x' }] };
    expect(view.json(JSON.stringify(nested))).toBe(JSON.stringify(toEventsV1(nested)));
  });

  it('rewrites the text of any Event exactly as parse, convert and serialize do', () => {
    const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.string(), fc.integer(), fc.boolean(), fc.constant(null), tie('object'), fc.array(tie('value'), { maxLength: 3 })),
      object: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('message', 'count', 'apiVersion', 'source', 'note')), tie('value'), { maxKeys: 4 }),
    })).value;
    const names = ['involvedObject', 'message', 'reportingComponent', 'source', 'firstTimestamp', 'lastTimestamp', 'count', 'reason', 'metadata'];
    fc.assert(fc.property(fc.dictionary(fc.constantFrom(...names), json), (members) => {
      const event = { apiVersion: 'v1', kind: 'Event', ...members };
      expect(view.json(JSON.stringify(event))).toBe(JSON.stringify(toEventsV1(event)));
    }), { numRuns: 300 });
  });
});
