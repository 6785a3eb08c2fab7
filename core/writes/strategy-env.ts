// Core: what a write's strategy hooks see of it (core/strategies/strategy.ts StrategyEnv), made once per write from the
// store and the write's context; the store's other objects and the Services' allocations are read only if a hook asks.

import { objectKey } from '../object-key';
import { seededRandom } from '../admission/service-allocation';
import { ServiceAllocations } from '../admission/service-ranges';
import type { StrategyEnv } from '../strategies/strategy';
import type { WriteContext, WriteStore } from './types';

export function strategyEnv(store: WriteStore, ctx: Omit<WriteContext, 'strategyEnv'>): StrategyEnv {
  return {
    type: ctx.type,
    now: ctx.now,
    fieldValidation: ctx.fieldValidation,
    warnings: ctx.warnings,
    view: ctx.view?.apiVersion,
    garbageCollection: ctx.garbageCollection,
    defaultTolerationSeconds: ctx.defaultTolerationSeconds,
    objects: () => store.objects(''),
    // The store keeps an index of what Services hold (durable-objects/resource-store.ts); a store without one is scanned.
    serviceAllocations: () => store.serviceAllocations
      ?? ServiceAllocations.of([...store.objects('')].map((o) => [objectKey(o.metadata.namespace ?? '', o.metadata.name ?? ''), o])),
    random: () => seededRandom(ctx.newUid()),
    user: ctx.admission?.inputs.user,
  };
}
