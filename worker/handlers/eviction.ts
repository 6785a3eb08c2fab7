// Front door: POST pods/<name>/eviction (core/pods/eviction.ts), authorized as `create pods/eviction`: a DELETE of
// the pod with the Eviction's options, answered 201 with a Success Status. Before the eviction deletes a running
// pod, the one PodDisruptionBudget selecting it must allow a disruption (kube's EvictionREST,
// pkg/registry/core/pod/storage/eviction.go), which the eviction takes by writing the budget's status
// (disruptionsAllowed − 1, the pod in disruptedPods) with its resourceVersion; a concurrent eviction that wrote
// first makes the write conflict, and the check runs again on the fresh budget (kube retries the same way). The
// verdict itself is core/pods/eviction.ts.

import { json, reply } from './reply';
import { send, type WriteQuery } from './write';
import type { Ctx, ResourceCall } from './call';
import { evictionDeleteOptions, evictionVerdict, type PdbView } from '../../core/pods/eviction';
import { groupResource, RESOURCE_TYPES, type ResourceType } from '../../core/registry';
import { createdStatus, StatusError } from '../../core/status';
import type { Bindings } from '../env';
import { readObject, storeFor } from '../stores';

const PDB_TYPE = RESOURCE_TYPES.find((t) => t.group === 'policy' && t.kind === 'PodDisruptionBudget' && t.stored) as ResourceType;
const ATTEMPTS = 5; // EvictionsRetry: a few tries against concurrent evictions of the same budget

async function budgets(env: Bindings, namespace: string): Promise<PdbView[]> {
  const res = await storeFor(env, PDB_TYPE).list(groupResource(PDB_TYPE), { namespace, query: '', format: { as: 'List' } });
  if (!res.ok) throw new Error(`listing poddisruptionbudgets: HTTP ${res.status}`);
  return ((await res.json()) as { items?: PdbView[] }).items ?? [];
}

/** Throws the Status that refuses the eviction; returns once the pod may be deleted. */
export async function admitEviction(env: Bindings, podType: ResourceType, namespace: string, name: string, dryRun: boolean, now: () => number): Promise<void> {
  if (!PDB_TYPE) return;
  let conflict: StatusError | undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const pod = await readObject<Record<string, unknown>>(env, podType, namespace, name);
    if (!pod.ok) return; // the delete answers the 404
    const verdict = evictionVerdict(pod.value, await budgets(env, namespace), now(), dryRun);
    if (verdict.kind === 'delete') return;
    if (verdict.kind === 'refuse') throw new StatusError(verdict.status);
    const written = await storeFor(env, PDB_TYPE).write(groupResource(PDB_TYPE), {
      verb: 'update', namespace, name: verdict.pdb.metadata.name!, subresource: 'status', body: JSON.stringify(verdict.pdb),
    });
    if (written.ok) return;
    conflict = new StatusError(written.status);
    if (written.status.code !== 409) break;
  }
  throw conflict!; // still conflicting after the retries: the conflict, as kube answers
}

export async function evict(c: Ctx, call: ResourceCall, body: string, query: WriteQuery): Promise<Response> {
  const { namespace, name } = call.info;
  const options = evictionDeleteOptions(body, name);
  await admitEviction(c.env, call.type, namespace, name, query.dryRun, Date.now);
  const result = await send(c, call, { verb: 'delete', namespace, name, body: options, query: {} }, query);
  return result.ok ? json(201, JSON.stringify(createdStatus())) : reply(result);
}
