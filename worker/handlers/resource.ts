// Front door: a resource request (verb, type, namespace, name), checked as kube-apiserver's router checks it before
// any handler runs — scope, allowed verbs, the answer's media type — then handed to its verb's handler (one module
// each) with the store that serves the type and the view that store answers in (core/views/view.ts).

import type { ResourceRequest, Verb } from '../../core/request-info';
import { subresourceInfo, type ResourceType, type Subresource } from '../../core/registry';
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
import { CONNECT_SUBRESOURCES, podConnect, podLog, proxy } from './pod-subresources';
import { componentStatuses } from './component-statuses';
import { admitConnect } from '../admission-webhooks-connect';
import { metricsApi } from './metrics-api';
import { unavailableAggregated } from './aggregated';
import type { Ctx, Handler } from './call';

const HANDLERS: Readonly<Record<Exclude<Verb, 'watch'>, Handler>> = {
  get, list, create, update, patch, delete: deleteOne, deletecollection: deleteCollection,
};

export async function handleResource(c: Ctx, info: ResourceRequest): Promise<Response> {
  const requested = info.type;
  if (!requested) {
    // A group version an APIService hands to a Service that cannot answer: the aggregator's 503, not a 404.
    const unavailable = await unavailableAggregated(c, info.group, info.version);
    if (unavailable) return unavailable;
  }
  if (!requested || (info.namespace && !requested.namespaced)) throw new StatusError(unknownResource());
  // Only a proxy subresource takes a path after it (pods/<name>/proxy/<path>); anything else is no route.
  if (info.subpath && info.subresource !== 'proxy') throw new StatusError(unknownResource());
  // Subresources answer only their own verbs (pods/log: get; pods/binding: create; ...), 405 otherwise; the
  // streaming ones (./pod-subresources.ts) are answered here, never by a store.
  if (info.subresource && requested.subresources.includes(info.subresource as Subresource)) {
    if (!subresourceInfo(requested, info.subresource as Subresource).verbs.includes(info.verb)) throw new StatusError(methodNotAllowed());
    const url = new URL(c.req.url);
    // CONNECT admission (webhooks, policies) before the connection, as kube's ConnectResource.
    await admitConnect(c, requested, info, url);
    if (info.subresource === 'log') return podLog(c, info, url);
    if (CONNECT_SUBRESOURCES.has(info.subresource)) return podConnect(c, info, url);
    if (info.subresource === 'proxy') return proxy(c, requested, info);
  }
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
  // ComponentStatus: answered from the components' health, never stored (componentstatus/rest.go).
  if (requested.group === '' && requested.kind === 'ComponentStatus') {
    if (info.verb !== 'watch') negotiateOutput(c.req.header('accept'));
    return deprecated(requested, await componentStatuses(c, requested, info, call.url));
  }
  // metrics.k8s.io: answered from the simulated kubelets' usage, never stored (core/metrics-api).
  if (requested.group === 'metrics.k8s.io') {
    negotiateOutput(c.req.header('accept'));
    return (await unavailableAggregated(c, requested.group, requested.version)) ?? metricsApi(c, requested, info, call.url);
  }
  if (info.verb === 'watch') return watch(c, call);
  // 406 before anything is done: a write must not happen when its answer cannot be sent.
  negotiateOutput(c.req.header('accept'));
  return deprecated(requested, await HANDLERS[info.verb](c, call));
}

/**
 * A deprecated API's Warning on every answer: a CRD version's (apiextensions customresource_handler.go), or a
 * built-in kind's (the apiserver's deprecation filter, e.g. `v1 ComponentStatus is deprecated in v1.19+`).
 */
function deprecated(type: ResourceType, res: Response): Response {
  const warning = type.custom?.deprecationWarning ?? type.deprecated;
  if (!warning) return res;
  const out = new Response(res.body, res);
  out.headers.append('warning', `299 - ${JSON.stringify(warning)}`);
  return out;
}
