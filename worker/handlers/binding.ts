// Front door: POST pods/<name>/binding (core/pods/binding.ts), authorized as `create pods/binding`: an atomic update
// of the pod's "binding" subresource, which the Pod strategy writes (core/strategies/pod.ts); and the namespace's
// bindings collection, which binds the pod its Binding names.

import { lookupGroupResource } from '../../core/registry';
import { badRequest, StatusError } from '../../core/status';
import { reply } from './reply';
import { attributed, send, type WriteQuery } from './write';
import type { Ctx, ResourceCall } from './call';

export async function bind(c: Ctx, call: ResourceCall, body: string, query: WriteQuery): Promise<Response> {
  const { namespace, name } = call.info;
  return reply(await send(c, call, attributed(c, call.url, { verb: 'update', namespace, name, subresource: 'binding', body }), query));
}

/**
 * POST namespaces/<ns>/bindings: kube's LegacyBindingREST takes the pod's name from the Binding's metadata and
 * binds it exactly as pods/<name>/binding does (core/pods/binding.ts), answering 201 with a Success Status.
 */
export async function bindCollection(c: Ctx, call: ResourceCall, body: string, query: WriteQuery): Promise<Response> {
  let name = '';
  try {
    const parsed = JSON.parse(body) as { metadata?: { name?: unknown } };
    if (typeof parsed?.metadata?.name === 'string') name = parsed.metadata.name;
  } catch {
    // the pods store words the decoding error
  }
  // NamespaceKeyFunc refuses an empty name before the pod is read.
  if (!name && body.trim().startsWith('{')) throw new StatusError(badRequest('Name parameter required.'));
  const pods = lookupGroupResource('core/pods')!;
  const podCall: ResourceCall = { type: pods, info: { ...call.info, name, subresource: 'binding' }, url: call.url };
  return reply(await send(c, podCall, { verb: 'update', namespace: call.info.namespace, name, subresource: 'binding', body }, query));
}
