// Core: the Service strategy (pkg/registry/core/service/storage, core/admission/service-allocation.ts): an update
// first keeps the addresses allocated earlier that the request left out, then defaults; creates and main-resource
// updates take their clusterIP and nodePorts from what the other stored Services hold, inside the write.

import { applyDefaults } from '../admission/defaults';
import { allocateServiceCreate, allocateServiceUpdate, keepAllocatedValues } from '../admission/service-allocation';
import { DEFAULT_STRATEGY } from './default';
import type { WriteStrategy } from './strategy';

export const SERVICE_STRATEGY: WriteStrategy = {
  ...DEFAULT_STRATEGY,
  default(obj, old) {
    if (old) keepAllocatedValues(old, obj);
    applyDefaults(obj);
  },
  allocate(obj, old, env) {
    if (old) allocateServiceUpdate(old, obj, env.serviceAllocations(), env.random());
    else allocateServiceCreate(obj, env.serviceAllocations(), env.random());
  },
};
