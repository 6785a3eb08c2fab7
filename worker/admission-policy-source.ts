// Front door: the ValidatingAdmissionPolicies and bindings this isolate knows (kube's policy source, fed by
// informers), read from their stores at most once per ADMISSION_CACHE_TTL_MS and again at once after a write
// through this isolate (worker/admission-cache.ts generation), bounded (one list page of at most POLICY_LIST_LIMIT
// objects and POLICY_LIST_BYTES per type). Bindings are read first: a cluster
// without any pays one cached list read per second per isolate and nothing per write. Policies are compiled once
// per uid and resourceVersion (core/admission/policy/compile.ts), at most COMPILED_LIMIT kept.

import { compilePolicy, type CompiledPolicy } from '../core/admission/policy/compile';
import { bindingsByPolicy } from '../core/admission/policy/plan';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../core/admission/policy/types';
import { ADMISSION_CACHE_TTL_MS, admissionCache, admissionCacheGeneration } from './admission-cache';
import { groupResource, lookupGroupResource, type ResourceType } from '../core/registry';
import type { KubeObject } from '../core/object-meta';
import { internalError, StatusError } from '../core/status';
import { readCapped } from './body';
import type { Bindings } from './env';
import { storeFor } from './stores';

export const POLICIES = lookupGroupResource('admissionregistration.k8s.io/validatingadmissionpolicies')!;
export const BINDINGS = lookupGroupResource('admissionregistration.k8s.io/validatingadmissionpolicybindings')!;
const COMPILED_LIMIT = 256;
/**
 * The most policies, and bindings, one list read takes (and its bytes): kube has no bound, so this one is wide;
 * past it the writes a policy could match are refused (500), as kube's plugin refuses before its informers sync.
 */
export const POLICY_LIST_LIMIT = 500;
export const POLICY_LIST_BYTES = 8 * 1024 * 1024;

async function listAll(env: Bindings, type: ResourceType): Promise<KubeObject[]> {
  const res = await storeFor(env, type).list(groupResource(type), { namespace: '', query: `?limit=${POLICY_LIST_LIMIT}`, format: { as: 'List' } });
  const text = await readCapped(res, POLICY_LIST_BYTES);
  if (text === undefined) throw new StatusError(internalError(`ValidatingAdmissionPolicy: ${type.resource} over ${POLICY_LIST_BYTES} bytes`));
  if (res.status !== 200) throw new StatusError(internalError(`ValidatingAdmissionPolicy could not list ${type.resource}: ${res.status}`));
  const list = JSON.parse(text) as { items?: KubeObject[]; metadata?: { continue?: string } };
  if (list.metadata?.continue) throw new StatusError(internalError(`ValidatingAdmissionPolicy: more than ${POLICY_LIST_LIMIT} ${type.resource}`));
  return list.items ?? [];
}

export interface PolicySnapshot {
  policies: ValidatingAdmissionPolicy[];
  byPolicy: Map<string, ValidatingAdmissionPolicyBinding[]>;
}

const EMPTY: PolicySnapshot = { policies: [], byPolicy: new Map() };
let snapshot: { at: number; generation: number; value: PolicySnapshot } | undefined;

/** The policies that have at least one binding, and their bindings by policy name. */
export async function policySnapshot(env: Bindings, now = Date.now()): Promise<PolicySnapshot> {
  const generation = admissionCacheGeneration();
  if (snapshot && now - snapshot.at < ADMISSION_CACHE_TTL_MS && snapshot.generation === generation) return snapshot.value;
  // Requests that find the snapshot old share one read (emptying the admission cache after a write ends the sharing).
  const value = await admissionCache.shared('policies|', async (): Promise<PolicySnapshot> => {
    const bindings = (await listAll(env, BINDINGS)) as ValidatingAdmissionPolicyBinding[];
    if (!bindings.length) return EMPTY;
    const byPolicy = bindingsByPolicy(bindings);
    const policies = ((await listAll(env, POLICIES)) as ValidatingAdmissionPolicy[]).filter((p) => byPolicy.has(p.metadata.name ?? ''));
    return { policies, byPolicy };
  });
  snapshot = { at: now, generation, value };
  return value;
}

const compiled = new Map<string, CompiledPolicy>();

/** The policy compiled, once per revision (oldest entries dropped past COMPILED_LIMIT). */
export function compiledPolicy(p: ValidatingAdmissionPolicy): CompiledPolicy {
  const key = `${p.metadata.uid ?? p.metadata.name}|${p.metadata.resourceVersion ?? ''}`;
  let c = compiled.get(key);
  if (c) return c;
  c = compilePolicy(p);
  compiled.set(key, c);
  for (const k of compiled.keys()) {
    if (compiled.size <= COMPILED_LIMIT) break;
    compiled.delete(k);
  }
  return c;
}

/** Tests: forget what was read. */
export function resetPolicySource(): void {
  snapshot = undefined;
  compiled.clear();
}
