// Core: the strict checks kube-apiserver adds for Events created through events.k8s.io/v1
// (pkg/apis/core/validation/events.go ValidateEventCreate with a non-core request version): the legacy
// checks, with the reporting controller named `reportingController`, then series, eventTime required,
// type Normal|Warning, and none of the fields only core/v1 writes may carry. The body is the event as
// core/v1 sees it (core/views/events-v1.ts), so the paths of those last fields are the core/internal names,
// exactly as kube reports them.
import { validateEvent } from './other';
import { invalidValue, required } from './names';
import { Causes, type Obj } from './shape';
import type { FieldCause } from './names';

export function validateEventsV1Create(event: Obj): FieldCause[] {
  const v = new Causes();
  validateEvent(v, event);
  const causes = v.all.map((c) => (c.field === 'reportingComponent' ? { ...c, field: 'reportingController' } : c));
  const series = event.series as Obj | null | undefined;
  if (series && typeof series === 'object') {
    if (!(typeof series.count === 'number' && series.count >= 2)) causes.push(invalidValue('series.count', '', 'should be at least 2'));
    if (!series.lastObservedTime) causes.push(required('series.lastObservedTime'));
  }
  if (!event.eventTime) causes.push(required('eventTime'));
  if (event.type !== 'Normal' && event.type !== 'Warning') causes.push(invalidValue('type', '', `has invalid value: ${event.type ?? ''}`));
  if (event.firstTimestamp) causes.push(invalidValue('firstTimestamp', '', 'needs to be unset'));
  if (event.lastTimestamp) causes.push(invalidValue('lastTimestamp', '', 'needs to be unset'));
  if (typeof event.count === 'number' && event.count !== 0) causes.push(invalidValue('count', '', 'needs to be unset'));
  const source = event.source as Obj | null | undefined;
  if (source && (source.component || source.host)) causes.push(invalidValue('source', '', 'needs to be unset'));
  return causes;
}
