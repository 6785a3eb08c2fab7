import { describe, expect, it } from 'vitest';
import { validateEventsV1Create } from '../../core/validation/events-v1';
import { toCoreEvent } from '../../core/views/events-v1';
import { invalid } from '../../core/status';

const good = {
  apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e', namespace: 'ns' }, eventTime: '2026-01-01T00:00:00.000000Z',
  reportingController: 'example.com/ctl', reportingInstance: 'ctl-1', action: 'Do', reason: 'Done', type: 'Normal', regarding: { kind: 'Pod', namespace: 'ns', name: 'p' },
};
const causes = (o: Record<string, unknown>) => validateEventsV1Create(toCoreEvent(o));

describe('events.k8s.io/v1 strict create validation', () => {
  it('accepts a well-formed event', () => {
    expect(causes(good)).toEqual([]);
  });

  it('words every refusal as kube, with the reporting controller under its events.k8s.io name', () => {
    const bad = { ...good, eventTime: undefined, reportingController: '', type: 'Odd', deprecatedCount: 3, deprecatedSource: { component: 'x' }, deprecatedLastTimestamp: '2026-01-01T00:00:00Z', series: { count: 1 } };
    const status = invalid('events.k8s.io', 'Event', 'e', causes(bad));
    expect(status.message).toBe('Event.events.k8s.io "e" is invalid: [series.count: Invalid value: "": should be at least 2, series.lastObservedTime: Required value, eventTime: Required value, type: Invalid value: "": has invalid value: Odd, lastTimestamp: Invalid value: "": needs to be unset, count: Invalid value: "": needs to be unset, source: Invalid value: "": needs to be unset]');
    // With eventTime set, the legacy checks apply: the controller's name is reported as reportingController.
    const noController = causes({ ...good, reportingController: '' });
    expect(noController[0]).toEqual({ reason: 'FieldValueRequired', message: 'Required value', field: 'reportingController' });
  });
});
