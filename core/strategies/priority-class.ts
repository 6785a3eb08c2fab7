// Core: the PriorityClass strategy (pkg/registry/scheduling/priorityclass/storage REST.Delete): the system classes
// cannot be deleted. DeleteCollection's generic store path does not ask, in kube as here (core/writes/delete-collection.ts
// calls no beforeDelete).

import { forbidden, StatusError } from '../status';
import { SYSTEM_PRIORITY_CLASSES } from '../priority-classes';
import { DEFAULT_STRATEGY } from './default';
import type { WriteStrategy } from './strategy';

export const PRIORITY_CLASS_STRATEGY: WriteStrategy = {
  ...DEFAULT_STRATEGY,
  beforeDelete(current, env) {
    const name = current.metadata.name;
    if (SYSTEM_PRIORITY_CLASSES.some((c) => c.metadata.name === name)) {
      throw new StatusError(forbidden(env.type, name ?? '', 'this is a system priority class and cannot be deleted'));
    }
    return undefined;
  },
};
