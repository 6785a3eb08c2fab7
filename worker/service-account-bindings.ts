// Front door: what a ServiceAccount token is bound to, as kube-apiserver does it. At issue time
// (TokenRequest spec.boundObjectRef, pkg/registry/core/serviceaccount/storage/token.go) the Pod, Secret or
// Node must exist (with the given uid, if any); at every use (pkg/serviceaccount/claims.go Validate) the
// account and the bound object must still exist with the uids the token names, and not have been
// deleted for longer than the leeway. A failed or unavailable lookup means "not valid" (fail closed).

import { lookupGroupResource, type ResourceType } from '../core/registry';
import { badRequest, conflict, StatusError } from '../core/status';
import { CLOCK_LEEWAY_SECONDS, type KubernetesClaim, type ObjectRef } from '../core/auth/service-account-token';
import type { Bindings } from './env';
import { readObject } from './stores';

interface Meta {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  spec?: { serviceAccountName?: string; nodeName?: string };
}

const SERVICE_ACCOUNTS = lookupGroupResource('core/serviceaccounts')!;
const PODS = lookupGroupResource('core/pods')!;
const SECRETS = lookupGroupResource('core/secrets')!;
const NODES = lookupGroupResource('core/nodes')!;

/** spec.boundObjectRef of a TokenRequest. */
export interface BoundObjectReference {
  kind?: string;
  apiVersion?: string;
  name?: string;
  uid?: string;
}

/** The claims a bound token carries besides its account: pod (with the pod's node), secret or node. */
export type BoundClaims = Pick<KubernetesClaim, 'pod' | 'secret' | 'node'>;

/**
 * Resolves spec.boundObjectRef for account `saName` in `namespace`, with kube's errors: the object's own
 * 404, 400 for an unsupported kind or a pod of another account, 409 for a uid that no longer matches.
 */
export async function resolveBoundObject(env: Bindings, namespace: string, saName: string, ref: BoundObjectReference): Promise<BoundClaims> {
  const kind = ref.kind ?? '';
  const apiVersion = ref.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const name = ref.name ?? '';
  const type = group === '' ? ({ Pod: PODS, Secret: SECRETS, Node: NODES } as Record<string, ResourceType | undefined>)[kind] : undefined;
  // schema.GroupVersionKind.String(): "<group>/<version>, Kind=<kind>".
  if (!type) throw new StatusError(badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`));
  const obj = await mustRead(env, type, type.namespaced ? namespace : '', name);
  const bound: BoundClaims = {};
  if (type === PODS) {
    // The ServiceAccount admission plugin stores "default" for a pod that names no account.
    if ((obj.spec?.serviceAccountName || 'default') !== saName) {
      throw new StatusError(badRequest(`cannot bind token for serviceaccount "${saName}" to pod running with different serviceaccount name.`));
    }
    bound.pod = { name: obj.metadata.name, uid: obj.metadata.uid };
    // ServiceAccountTokenPodNodeInfo: record the pod's node, with its uid when the Node exists.
    const nodeName = obj.spec?.nodeName;
    if (nodeName) {
      const node = await readObject<Meta>(env, NODES, '', nodeName);
      if (!node.ok && node.status.code !== 404) throw new StatusError(node.status);
      bound.node = { name: nodeName, uid: node.ok ? node.value.metadata.uid : '' };
    }
  } else if (type === SECRETS) {
    bound.secret = { name: obj.metadata.name, uid: obj.metadata.uid };
  } else {
    bound.node = { name: obj.metadata.name, uid: obj.metadata.uid };
  }
  if (ref.uid && ref.uid !== obj.metadata.uid) {
    // NewConflict(GroupResource{Resource: <Kind>}, ...), so the message names the Kind.
    throw new StatusError(conflict({ group: '', resource: kind }, name, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`));
  }
  return bound;
}

async function mustRead(env: Bindings, type: ResourceType, namespace: string, name: string): Promise<Meta> {
  const got = await readObject<Meta>(env, type, namespace, name);
  if (!got.ok) throw new StatusError(got.status);
  return got.value;
}

/**
 * Whether the account and every object the token is bound to still exist as they were when it was
 * issued. A pod-bound token's node is information only (kube does not validate it); a node-bound
 * token's node is checked.
 */
export async function stillBound(env: Bindings, k: KubernetesClaim, nowSeconds: number): Promise<boolean> {
  const checks = [sameObject(env, SERVICE_ACCOUNTS, k.namespace, k.serviceaccount, nowSeconds)];
  if (k.pod) checks.push(sameObject(env, PODS, k.namespace, k.pod, nowSeconds));
  if (k.secret) checks.push(sameObject(env, SECRETS, k.namespace, k.secret, nowSeconds));
  if (k.node && !k.pod) checks.push(sameObject(env, NODES, '', k.node, nowSeconds));
  const results = await Promise.all(checks);
  return results.every(Boolean);
}

async function sameObject(env: Bindings, type: ResourceType, namespace: string, ref: ObjectRef, nowSeconds: number): Promise<boolean> {
  const got = await readObject<Meta>(env, type, namespace, ref.name);
  if (!got.ok || got.value.metadata.uid !== ref.uid) return false;
  // Deleted (awaiting finalizers) for longer than the leeway: invalid, as claims.go invalidIfDeletedBefore.
  const deleted = got.value.metadata.deletionTimestamp;
  return !deleted || Date.parse(deleted) / 1000 >= nowSeconds - CLOCK_LEEWAY_SECONDS;
}
