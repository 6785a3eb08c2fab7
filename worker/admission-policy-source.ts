// Front door: the Validating- and MutatingAdmissionPolicies and bindings this isolate knows (kube's policy source, fed by
// informers), read from their stores at most once per ADMISSION_CACHE_TTL_MS and again at once after a write
// through this isolate (worker/admission-cache.ts generation), bounded (one list page of at most POLICY_LIST_LIMIT
// objects and POLICY_LIST_BYTES per type). Bindings are read first: a cluster
// without any pays one cached list read per second per isolate and nothing per write. Policies are compiled once
// per uid and resourceVersion (core/admission/policy/compile.ts), at most COMPILED_LIMIT kept.

import { compilePolicy, type CompiledPolicy } from '../core/admission/policy/compile';
import { bindingsByPolicy } from '../core/admission/policy/plan';
import type { MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../core/admission/policy/types';
import { compileMutatingPolicy, type CompiledMutatingPolicy } from '../core/admission/policy/mutate';
import { ADMISSION_CACHE_TTL_MS, admissionCacheGeneration } from './admission-cache';
import { groupResource, lookupGroupResource, type ResourceType } from '../core/registry';
import type { KubeObject } from '../core/object-meta';
import { internalError, StatusError } from '../core/status';
import { readCapped } from './body';
import type { Bindings } from './env';
import { storeFor } from './stores';

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
  if (text === undefined) throw new StatusError(internalError(`admission policies: ${type.resource} over ${POLICY_LIST_BYTES} bytes`));
  if (res.status !== 200) throw new StatusError(internalError(`admission policies could not list ${type.resource}: ${res.status}`));
  const list = JSON.parse(text) as { items?: KubeObject[]; metadata?: { continue?: string } };
  if (list.metadata?.continue) throw new StatusError(internalError(`admission policies: more than ${POLICY_LIST_LIMIT} ${type.resource}`));
  return list.items ?? [];
}

export interface PolicySnapshot<P extends KubeObject = ValidatingAdmissionPolicy, B extends KubeObject = ValidatingAdmissionPolicyBinding> {
  policies: P[];
  byPolicy: Map<string, B[]>;
}

const EMPTY: PolicySnapshot<never, never> = { policies: [], byPolicy: new Map() };

/**
 * One kind of policy as this isolate knows it: its policies that have bindings, and those bindings, read at most
 * once per ADMISSION_CACHE_TTL_MS (and after a write through this isolate); an API not served (MutatingAdmission-
 * Policy while RUNTIME_CONFIG leaves it off) has none.
 */
class PolicySource<P extends KubeObject, B extends KubeObject> {
  private snapshot: { at: number; generation: number; value: PolicySnapshot<P, B> } | undefined;
  constructor(private readonly policiesName: string, private readonly bindingsName: string) {}

  async read(env: Bindings, now = Date.now()): Promise<PolicySnapshot<P, B>> {
    const generation = admissionCacheGeneration();
    const s = this.snapshot;
    if (s && now - s.at < ADMISSION_CACHE_TTL_MS && s.generation === generation) return s.value;
    const policiesType = lookupGroupResource(this.policiesName);
    const bindingsType = lookupGroupResource(this.bindingsName);
    let value = EMPTY as PolicySnapshot<P, B>;
    if (policiesType && bindingsType) {
      const bindings = (await listAll(env, bindingsType)) as B[];
      if (bindings.length) {
        const byPolicy = bindingsByPolicy(bindings as never) as unknown as Map<string, B[]>;
        const policies = ((await listAll(env, policiesType)) as P[]).filter((p) => byPolicy.has(p.metadata.name ?? ''));
        value = { policies, byPolicy };
      }
    }
    this.snapshot = { at: now, generation, value };
    return value;
  }

  reset(): void {
    this.snapshot = undefined;
  }
}

const validating = new PolicySource<ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding>(
  'admissionregistration.k8s.io/validatingadmissionpolicies', 'admissionregistration.k8s.io/validatingadmissionpolicybindings');
const mutating = new PolicySource<MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding>(
  'admissionregistration.k8s.io/mutatingadmissionpolicies', 'admissionregistration.k8s.io/mutatingadmissionpolicybindings');

/** The ValidatingAdmissionPolicies that have at least one binding, and their bindings by policy name. */
export function policySnapshot(env: Bindings, now = Date.now()): Promise<PolicySnapshot> {
  return validating.read(env, now);
}

/** The MutatingAdmissionPolicies (when served) that have at least one binding, and their bindings. */
export function mutatingPolicySnapshot(env: Bindings, now = Date.now()): Promise<PolicySnapshot<MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding>> {
  return mutating.read(env, now);
}

const compiled = new Map<string, CompiledPolicy>();

/** The policy compiled, once per revision (oldest entries dropped past COMPILED_LIMIT). */
export function compiledPolicy(p: ValidatingAdmissionPolicy): CompiledPolicy {
  return cached(`v|${p.metadata.uid ?? p.metadata.name}|${p.metadata.resourceVersion ?? ''}`, () => compilePolicy(p));
}

/** A MutatingAdmissionPolicy compiled, once per revision (the same bound, shared with the validating ones). */
export function compiledMutatingPolicy(p: MutatingAdmissionPolicy): CompiledMutatingPolicy {
  return cached(`m|${p.metadata.uid ?? p.metadata.name}|${p.metadata.resourceVersion ?? ''}`, () => compileMutatingPolicy(p)) as CompiledMutatingPolicy;
}

function cached(key: string, compile: () => CompiledPolicy): CompiledPolicy {
  let c = compiled.get(key);
  if (c) return c;
  c = compile();
  compiled.set(key, c);
  for (const k of compiled.keys()) {
    if (compiled.size <= COMPILED_LIMIT) break;
    compiled.delete(k);
  }
  return c;
}

/** Tests: forget what was read. */
export function resetPolicySource(): void {
  validating.reset();
  mutating.reset();
  compiled.clear();
}
