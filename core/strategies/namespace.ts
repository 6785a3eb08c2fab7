// Core: the Namespace strategy (pkg/registry/core/namespace/storage/storage.go): PUT namespaces/<n>/finalize
// changes spec.finalizers alone; while the namespace controller runs, a DELETE of a namespace that spec.finalizers
// holds only marks it Terminating, and an update that empties both kinds of finalizers of a namespace being deleted
// completes its deletion (core/namespaces/deletion.ts).

import { timestamp } from '../object-meta';
import { markNamespaceDeleting, mergeFinalize, namespaceHeld } from '../namespaces/deletion';
import { DEFAULT_STRATEGY } from './default';
import type { WriteStrategy } from './strategy';

export const NAMESPACE_STRATEGY: WriteStrategy = {
  ...DEFAULT_STRATEGY,
  prepareForUpdate: (next, current, subresource, env) => (subresource === 'finalize'
    ? mergeFinalize(current, next) : DEFAULT_STRATEGY.prepareForUpdate(next, current, subresource, env)),
  shouldDeleteDuringUpdate: (obj) => DEFAULT_STRATEGY.shouldDeleteDuringUpdate(obj) && !namespaceHeld(obj),
  delete(current, env) {
    // With CONTROLLERS off there is no namespace controller: the front door empties the namespace and the DELETE removes it.
    if (env.garbageCollection === false || !namespaceHeld(current)) return undefined;
    return current.metadata.deletionTimestamp ? current : markNamespaceDeleting(current, timestamp(env.now));
  },
};
