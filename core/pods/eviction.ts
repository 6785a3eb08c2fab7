// Canonical layer: the pods/eviction subresource (kube's EvictionREST, pkg/registry/core/pod/storage/
// eviction.go). POST /api/v1/namespaces/<ns>/pods/<name>/eviction with a policy/v1 Eviction deletes the pod
// with the Eviction's deleteOptions — gracefully, as any DELETE — and answers 201 with a Success Status.
// There are no PodDisruptionBudgets in this API, so no eviction is ever refused with 429 for one.

import { badRequest, StatusError } from '../status';

interface Eviction { metadata?: { name?: string }; deleteOptions?: Record<string, unknown> | null }

/** The DeleteOptions body the eviction deletes with; throws the 400 of a malformed Eviction. */
export function evictionDeleteOptions(body: string, name: string): string {
  let e: Eviction;
  try {
    e = JSON.parse(body) as Eviction;
  } catch (err) {
    throw new StatusError(badRequest(`couldn't get version/kind; json parse error: ${(err as Error).message}`));
  }
  if (typeof e !== 'object' || e === null || Array.isArray(e)) throw new StatusError(badRequest('Eviction must be an object'));
  if (e.metadata?.name !== undefined && e.metadata.name !== name) throw new StatusError(badRequest('name in URL does not match name in Eviction object'));
  return JSON.stringify(e.deleteOptions ?? {});
}
