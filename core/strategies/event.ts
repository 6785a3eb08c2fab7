// Core: the Event strategy (pkg/registry/core/event/strategy.go, pkg/apis/core/validation/events.go
// ValidateEventCreate): one store serves core/v1 and events.k8s.io/v1 (core/views/events-v1.ts), and an Event
// created through events.k8s.io/v1 is validated strictly (core/validation/events-v1.ts): eventTime required, type
// Normal or Warning, none of the fields only core/v1 writes. Those causes come alone, named for the events.k8s.io
// kind, before the metadata rules'.

import { invalid, StatusError } from '../status';
import { validateEventsV1Create } from '../validation/events-v1';
import { EVENTS_V1 } from '../views/events-v1';
import { DEFAULT_STRATEGY } from './default';
import type { WriteStrategy } from './strategy';

export const EVENT_STRATEGY: WriteStrategy = {
  ...DEFAULT_STRATEGY,
  validate(obj, old, env) {
    if (!old && env.view === EVENTS_V1) {
      const causes = validateEventsV1Create(obj);
      if (causes.length) throw new StatusError(invalid('events.k8s.io', 'Event', obj.metadata.name ?? '', causes));
    }
    return DEFAULT_STRATEGY.validate(obj, old, env);
  },
};
