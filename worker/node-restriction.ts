// Front door: NodeRestriction (core/admission/plugins/node-restriction.ts) for what a kubelet asks that the store's
// admission chain never sees — deletes, and the subresource creates with a storage of their own (pods/eviction,
// pods/binding, serviceaccounts/token). Only a node's requests pay anything: the one pod the check consults is read.

import type { KubeObject } from '../core/object-meta';
import { lookupGroupResource } from '../core/registry';
import { StatusError } from '../core/status';
import { lookupsNeeded, nodeIdentity, nodeRestriction, type NodeLookups, type NodeOperation } from '../core/admission/plugins/node-restriction';
import type { Ctx, ResourceCall } from './handlers/call';
import { readObject } from './stores';

const PODS = lookupGroupResource('core/pods')!;

/** Throws kube's refusal when the requesting node may not make this delete or subresource create. */
export async function admitNodeRequest(c: Ctx, call: ResourceCall, operation: NodeOperation, body?: string): Promise<void> {
  const user = c.get('user');
  if (nodeIdentity(user) === undefined || call.type.custom) return;
  const { type, info } = call;
  let object: KubeObject = { metadata: {} } as KubeObject;
  if (body) {
    try {
      const parsed = JSON.parse(body) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) object = parsed as KubeObject;
    } catch {
      // the handler words the decoding error
    }
  }
  if (!object.metadata || typeof object.metadata !== 'object') object = { ...object, metadata: {} } as KubeObject;
  const subresource = info.subresource ?? '';
  const name = info.name ?? '';
  const need = lookupsNeeded({ operation, name, type, subresource });
  const lookups: NodeLookups = {};
  if (need.pod) {
    // The eviction's pod is the URL's; a token's, the pod its boundObjectRef names.
    const ref = subresource === 'token' ? (object as { spec?: { boundObjectRef?: { name?: unknown; kind?: unknown } } }).spec?.boundObjectRef : undefined;
    const podName = subresource === 'token' ? (ref?.kind === 'Pod' && typeof ref.name === 'string' ? ref.name : '') : name;
    if (podName) {
      const got = await readObject<KubeObject>(c.env, PODS, info.namespace, podName);
      if (got.ok) lookups.pod = got.value;
      else if (got.status.code === 404) lookups.pod = null;
      else throw new StatusError(got.status);
    }
  }
  nodeRestriction(user, {
    operation, name,
    attrs: { operation: operation === 'DELETE' ? 'UPDATE' : operation, type, namespace: info.namespace, subresource, object, dryRun: false },
  }, lookups);
}
