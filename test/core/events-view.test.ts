import { describe, expect, it } from 'vitest';
import { bodyToCoreEvent, frameToEventsV1, patchToCoreEvent, replyToEventsV1, toCoreEvent, toEventsV1 } from '../../core/events-view';

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
    expect(JSON.parse(bodyToCoreEvent(JSON.stringify(v1)))).toEqual(core);
    // Not an Event of the other version: unchanged (Status replies, wrong apiVersion for the store to refuse).
    const status = { kind: 'Status', apiVersion: 'v1', code: 404 };
    expect(toEventsV1(status)).toBe(status);
    expect(bodyToCoreEvent('{not json')).toBe('{not json');
  });

  it('rewrites lists, Table rows and watch frames', () => {
    const list = JSON.parse(replyToEventsV1(JSON.stringify({ kind: 'EventList', apiVersion: 'v1', metadata: {}, items: [core] })));
    expect(list).toEqual({ kind: 'EventList', apiVersion: 'events.k8s.io/v1', metadata: {}, items: [v1] });
    const table = JSON.parse(replyToEventsV1(JSON.stringify({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', rows: [{ cells: [], object: core }] })));
    expect(table.rows[0].object).toEqual(v1);
    expect(JSON.parse(frameToEventsV1(`${JSON.stringify({ type: 'MODIFIED', object: core })}\n`))).toEqual({ type: 'MODIFIED', object: v1 });
    const bookmark = JSON.parse(frameToEventsV1(`${JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Event', apiVersion: 'v1', metadata: { resourceVersion: '9' } } })}\n`));
    expect(bookmark.object.apiVersion).toBe('events.k8s.io/v1');
  });

  it('renames patch fields: merge patches by key, JSON patches by path', () => {
    expect(JSON.parse(patchToCoreEvent(JSON.stringify({ note: 'x', deprecatedCount: 3, series: { count: 2 } })))).toEqual({ message: 'x', count: 3, series: { count: 2 } });
    expect(JSON.parse(patchToCoreEvent(JSON.stringify([{ op: 'replace', path: '/note', value: 'y' }, { op: 'add', path: '/regarding/name', value: 'z' }]))))
      .toEqual([{ op: 'replace', path: '/message', value: 'y' }, { op: 'add', path: '/involvedObject/name', value: 'z' }]);
  });
});
