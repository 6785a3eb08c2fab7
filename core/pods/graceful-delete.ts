// Canonical layer: graceful deletion of pods (pod strategy CheckGracefulDelete and rest.BeforeDelete,
// apiserver registry/rest/delete.go). A DELETE of a pod bound to a node does not remove it: it gets
// deletionTimestamp = now + grace and deletionGracePeriodSeconds = grace, and the node's kubelet, once it
// has stopped the containers, deletes it again with gracePeriodSeconds=0. Unbound and terminated pods go
// at once; a repeated DELETE may only shorten the grace period.

import type { KubeObject } from '../object-meta';
import { timestamp } from '../object-meta';

const DEFAULT_GRACE_SECONDS = 30; // TerminationGracePeriodSeconds' default

// The times metav1.Time can write (RFC 3339 with a four-digit year). A grace period is an int64 of seconds a user
// chose (terminationGracePeriodSeconds, ?gracePeriodSeconds=): now + 2^63 s is no date at all, and formatting it
// answered 500. kube's Go arithmetic wraps instead; the deadline here stops at the last second that can be written.
const MIN_TIME_MS = Date.parse('0001-01-01T00:00:00Z');
const MAX_TIME_MS = Date.parse('9999-12-31T23:59:59Z');
const deadline = (ms: number): string => timestamp(ms > MIN_TIME_MS ? Math.min(MAX_TIME_MS, ms) : MIN_TIME_MS);

export type GracefulOutcome =
  | { kind: 'now' } // delete (or finalize) as any object
  | { kind: 'unchanged' } // already terminating with a grace no longer than asked: answer the object as it is
  | { kind: 'mark'; object: KubeObject }; // store this marked object

/** What a DELETE with `requested` grace seconds (undefined: not given) does to `pod`. */
export function gracefulPodDelete(pod: KubeObject, requested: number | undefined, now: number): GracefulOutcome {
  const spec = (pod.spec ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  let grace = requested ?? spec.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;
  // CheckGracefulDelete: no node to stop containers on, or nothing left running.
  if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed') grace = 0;
  if (grace < 0) grace = 1; // kube turns a negative grace into the shortest graceful one
  const m = pod.metadata;
  if (m.deletionTimestamp) {
    const current = m.deletionGracePeriodSeconds as number | undefined;
    if (current === undefined || requested === undefined || grace >= current) return { kind: 'unchanged' };
    if (grace === 0) return { kind: 'now' };
    const next = structuredClone(pod);
    // From when the deletion was asked (unknown once the deadline was cut at the last writable second: then now).
    const at = Date.parse(String(m.deletionTimestamp));
    next.metadata.deletionTimestamp = deadline((at >= MAX_TIME_MS ? now : at - current * 1000) + grace * 1000);
    next.metadata.deletionGracePeriodSeconds = grace;
    return { kind: 'mark', object: next };
  }
  if (grace === 0) return { kind: 'now' };
  const next = structuredClone(pod);
  next.metadata.deletionTimestamp = deadline(now + grace * 1000);
  next.metadata.deletionGracePeriodSeconds = grace;
  return { kind: 'mark', object: next };
}
