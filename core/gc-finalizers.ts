// Canonical layer: the garbage-collection finalizers a DELETE adds (apiserver registry/generic/registry/
// store.go deletionFinalizersForGarbageCollection): `orphan` when dependents are to be orphaned,
// `foregroundDeletion` when they are to be deleted first. The first of orphanDependents, propagationPolicy,
// an existing finalizer and the type's default decides; the garbage collector does the rest.

import { invalid, StatusError } from './status';

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

export interface PropagationOptions {
  orphanDependents?: boolean;
  propagationPolicy?: string;
}

const POLICIES = new Set(['Orphan', 'Background', 'Foreground']);

// DefaultGarbageCollectionPolicy: batch/v1 Jobs (and ReplicationControllers) orphan unless asked otherwise.
const ORPHAN_BY_DEFAULT = new Set(['Job', 'ReplicationController']);

/** The finalizers the object carries after this DELETE; undefined when they do not change. */
export function deletionFinalizers(kind: string, finalizers: string[] | undefined, options: PropagationOptions): string[] | undefined {
  const policy = options.propagationPolicy;
  // apimachinery ValidateDeleteOptions: 422 on the DeleteOptions kind of meta.k8s.io.
  if (policy !== undefined && !POLICIES.has(policy)) {
    throw new StatusError(invalid('meta.k8s.io', 'DeleteOptions', '', [{
      reason: 'FieldValueNotSupported', field: 'propagationPolicy',
      message: `Unsupported value: ${JSON.stringify(policy)}: supported values: "Background", "Foreground", "Orphan"`,
    }]));
  }
  if (options.orphanDependents !== undefined && policy !== undefined) {
    throw new StatusError(invalid('meta.k8s.io', 'DeleteOptions', '', [{
      reason: 'FieldValueInvalid', field: 'propagationPolicy',
      message: `Invalid value: ${JSON.stringify(policy)}: orphanDependents and deletionPropagation cannot be both set`,
    }]));
  }
  const current = finalizers ?? [];
  const has = (f: string) => current.includes(f);
  let orphan: boolean;
  if (options.orphanDependents !== undefined) orphan = options.orphanDependents;
  else if (policy !== undefined) orphan = policy === 'Orphan';
  else orphan = has(ORPHAN_FINALIZER) || ORPHAN_BY_DEFAULT.has(kind);
  let foreground: boolean;
  if (options.orphanDependents === true) foreground = false;
  else if (policy !== undefined) foreground = policy === 'Foreground';
  else foreground = has(FOREGROUND_FINALIZER);
  const next = current.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (orphan) next.push(ORPHAN_FINALIZER);
  if (foreground) next.push(FOREGROUND_FINALIZER);
  const same = next.length === current.length && next.every((f) => current.includes(f));
  return same ? undefined : next;
}
