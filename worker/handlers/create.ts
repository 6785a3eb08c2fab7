// Front door: POST. A review type (SelfSubjectAccessReview, …) is answered, never stored; a subresource with a REST
// storage of its own goes to its handler (pods/binding, pods/eviction, serviceaccounts/token); anything else is a
// create, admitted only in a namespace that exists and is not terminating (./namespace-lifecycle.ts).

import { groupResource } from '../../core/registry';
import { methodNotAllowed, StatusError } from '../../core/status';
import { createInNamespace } from './namespace-lifecycle';
import { review, tokenRequest } from './reviews';
import { bind, bindCollection } from './binding';
import { evict } from './eviction';
import { reply } from './reply';
import type { KubeObject } from '../../core/object-meta';
import { admitWithoutWrite } from '../admission-webhooks';
import { attributed, send, writeQuery, writtenBody, type WriteQuery } from './write';
import type { Ctx, ResourceCall } from './call';
import { admitNodeRequest } from '../node-restriction';

type SubresourceCreate = (c: Ctx, call: ResourceCall, body: string, query: WriteQuery) => Promise<Response>;

// group/resource/subresource → its handler, as kube installs one REST storage per subresource.
const SUBRESOURCES: ReadonlyMap<string, SubresourceCreate> = new Map<string, SubresourceCreate>([
  ['core/pods/binding', bind],
  ['core/pods/eviction', evict],
  ['core/serviceaccounts/token', (c, call, body) => tokenRequest(c, call.info, body)],
]);

/** A subresource create's body through the admission webhooks (CREATE of e.g. pods/binding with the Binding). */
async function admittedSubresourceBody(c: Ctx, call: ResourceCall, body: string, query: WriteQuery): Promise<string> {
  let object: KubeObject;
  try {
    object = JSON.parse(body) as KubeObject;
  } catch {
    return body; // the handler words the decoding error
  }
  if (!object || typeof object !== 'object' || Array.isArray(object)) return body;
  const admitted = await admitWithoutWrite(c, call, {
    operation: 'CREATE', subresource: call.info.subresource, name: call.info.name, object, oldObject: null, dryRun: query.dryRun,
    options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', ...(query.dryRun ? { dryRun: ['All'] } : {}) },
  });
  return admitted === object ? body : JSON.stringify(admitted);
}

export async function create(c: Ctx, call: ResourceCall): Promise<Response> {
  const { type, info, url } = call;
  const body = await writtenBody(c, call);
  const query = writeQuery(url);
  // POST namespaces/<ns>/bindings (LegacyBindingREST): pods/binding of the pod the Binding names.
  if (type.group === '' && type.kind === 'Binding') return bindCollection(c, call, body, query);
  if (!type.stored) return review(c, type, body, query.fieldValidation, info.namespace);
  if (type.custom?.terminating) {
    // apiextensions customresource_handler.go serveResource.
    throw new StatusError({ ...methodNotAllowed(), message: 'create not allowed while custom resource definition is terminating' });
  }
  const { namespace, name, subresource } = info;
  if (subresource) {
    const handler = SUBRESOURCES.get(`${groupResource(type)}/${subresource}`);
    if (handler && name) {
      await admitNodeRequest(c, call, 'CREATE', body); // NodeRestriction, a built-in plugin, before the webhooks
      return handler(c, call, await admittedSubresourceBody(c, call, body, query), query);
    }
  }
  if (name || subresource) throw new StatusError(methodNotAllowed());
  return reply(await createInNamespace(c.env, type, namespace, body, (namespaceRevision) =>
    send(c, call, attributed(c, url, { verb: 'create', namespace, body }), query, { namespaceRevision })));
}
