// Front door: a resource request (verb, type, namespace, name), checked as kube-apiserver's router checks it before
// any handler runs — scope, allowed verbs, the answer's media type — then handed to its verb's handler (one module
// each) with the store that serves the type and the view that store answers in (core/views/view.ts).

import type { ResourceRequest, Verb } from '../../core/request-info';
import type { ResourceType } from '../../core/registry';
import { methodNotAllowed, StatusError, unknownResource } from '../../core/status';
import { servedBy } from '../../core/views/view';
import { negotiateOutput } from '../negotiation';
import { get } from './get';
import { list } from './list';
import { watch } from './watch';
import { create } from './create';
import { update } from './update';
import { patch } from './patch';
import { deleteCollection, deleteOne } from './delete';
import type { Ctx, Handler } from './call';

const HANDLERS: Readonly<Record<Exclude<Verb, 'watch'>, Handler>> = {
  get, list, create, update, patch, delete: deleteOne, deletecollection: deleteCollection,
};

export async function handleResource(c: Ctx, info: ResourceRequest): Promise<Response> {
  const requested = info.type;
  if (!requested || (info.namespace && !requested.namespaced)) throw new StatusError(unknownResource());
  // /api/v1/pods (no namespace) serves list and watch across namespaces, nothing else.
  const allNamespaces = requested.namespaced && !info.namespace;
  // PUT and PATCH have routes on items only (a collection path answers 405, as kube's router does).
  const itemVerbOnCollection = (info.verb === 'update' || info.verb === 'patch') && !info.name;
  if (!requested.verbs.includes(info.verb) || itemVerbOnCollection || (allNamespaces && info.verb !== 'list' && info.verb !== 'watch')) {
    throw new StatusError(methodNotAllowed());
  }
  // namespaces/finalize serves PUT alone (kube installs only Update for it).
  if (info.subresource === 'finalize' && info.verb !== 'update') throw new StatusError(methodNotAllowed());
  const call = { ...servedBy(requested), info, url: new URL(c.req.url) };
  if (info.verb === 'watch') return watch(c, call);
  // 406 before anything is done: a write must not happen when its answer cannot be sent.
  negotiateOutput(c.req.header('accept'));
  return deprecated(requested, await HANDLERS[info.verb](c, call));
}

/** A deprecated CRD version's Warning on every answer (apiextensions customresource_handler.go). */
function deprecated(type: ResourceType, res: Response): Response {
  const warning = type.custom?.deprecationWarning;
  if (!warning) return res;
  const out = new Response(res.body, res);
  out.headers.append('warning', `299 - ${JSON.stringify(warning)}`);
  return out;
}
