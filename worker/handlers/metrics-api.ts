// Front door: metrics.k8s.io/v1beta1 nodes and pods (NodeMetrics, PodMetrics), served built in where kube
// proxies them to metrics-server (pkg/api/{node,pod}.go there): get and list, label and field selectors,
// Tables, from the simulated kubelets' usage (core/metrics-api). Each answer reads the pods (and, for nodes,
// the nodes) once: linear in them, nothing kept between requests.

import type { Context } from 'hono';
import type { ResourceRequest } from '../../core/request-info';
import { lookupGroupResource, groupResource, type ResourceType } from '../../core/registry';
import { StatusError, notFound } from '../../core/status';
import { parseSelectors } from '../../core/list/options';
import { matchesObject } from '../../core/list/filter';
import type { KubeObject } from '../../core/object-meta';
import { hasUsage, nodeReporting } from '../../core/metrics-api/usage';
import { metricsList, metricsTable, nodeMetrics, podMetrics } from '../../core/metrics-api/objects';
import { listFormat } from '../negotiation';
import { storeFor } from '../stores';
import type { AppEnv } from '../env';

type Obj = Record<string, any>;

const PODS = lookupGroupResource('core/pods')!;
const NODES = lookupGroupResource('core/nodes')!;

// metrics-server's NotFound names the resource as nodemetrics / podmetrics (its storage's group resource).
const NODE_METRICS_TARGET = { group: 'metrics.k8s.io', resource: 'nodemetrics' };
const POD_METRICS_TARGET = { group: 'metrics.k8s.io', resource: 'podmetrics' };

/** Every object of a store (in a namespace, '' for all), with a query the store understands. */
async function listAll(c: Context<AppEnv>, type: ResourceType, namespace: string, query = ''): Promise<Obj[]> {
  const res = await storeFor(c.env, type).list(groupResource(type), { namespace, query, format: { as: 'List' } });
  const body = await res.json() as Obj;
  // A name no field selector can hold (a get's name is the user's path segment) names no pod or node.
  if (res.status === 400 && query.startsWith('?fieldSelector=metadata.name')) return [];
  if (!res.ok) throw new StatusError(body as never);
  return Array.isArray(body.items) ? body.items : [];
}

// The store's own field selector narrows the read; the exact name is checked again on what comes back, so a
// name written with selector syntax in it can only find nothing.
const byName = (name: string) => `?fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`;

export async function metricsApi(c: Context<AppEnv>, type: ResourceType, info: ResourceRequest, url: URL): Promise<Response> {
  const now = Date.now();
  const format = listFormat(c.req.header('accept'), url.searchParams.get('includeObject') ?? undefined);
  const nodesAsked = type.kind === 'NodeMetrics';
  const reply = (items: Obj[], single: boolean) => {
    if (format.as === 'Table') return Response.json(metricsTable(type, items, format.includeObject ?? 'Metadata'));
    return Response.json(single ? items[0] : metricsList(nodesAsked ? 'NodeMetricsList' : 'PodMetricsList', items));
  };
  if (info.verb === 'get') {
    if (nodesAsked) {
      const nodes = (await listAll(c, NODES, '', byName(info.name))).filter((n) => n?.metadata?.name === info.name && nodeReporting(n));
      if (!nodes.length) throw new StatusError(notFound(NODE_METRICS_TARGET, info.name));
      const pods = await listAll(c, PODS, '', `?fieldSelector=${encodeURIComponent(`spec.nodeName=${info.name}`)}`);
      return reply([nodeMetrics(nodes[0], pods, now)], true);
    }
    const pods = (await listAll(c, PODS, info.namespace, byName(info.name))).filter((p) => p?.metadata?.name === info.name && hasUsage(p));
    if (!pods.length) throw new StatusError(notFound(POD_METRICS_TARGET, `${info.namespace}/${info.name}`));
    return reply([podMetrics(pods[0], now)], true);
  }
  const q = url.searchParams;
  const selectors = parseSelectors({ labelSelector: q.get('labelSelector') ?? '', fieldSelector: q.get('fieldSelector') ?? '' }, type);
  // The label selector narrows the store's list already; both are checked on the metrics objects.
  const byLabel = q.get('labelSelector') ? `?labelSelector=${encodeURIComponent(q.get('labelSelector')!)}` : '';
  let items: Obj[];
  if (nodesAsked) {
    const [nodes, pods] = await Promise.all([listAll(c, NODES, '', byLabel), listAll(c, PODS, '', `?fieldSelector=${encodeURIComponent('status.phase=Running')}`)]);
    const byNode = new Map<string, Obj[]>();
    for (const p of pods) {
      const n = p?.spec?.nodeName;
      if (typeof n !== 'string') continue;
      const list = byNode.get(n) ?? [];
      list.push(p);
      byNode.set(n, list);
    }
    items = nodes.filter(nodeReporting).map((n) => nodeMetrics(n, byNode.get(n.metadata?.name) ?? [], now));
  } else {
    items = (await listAll(c, PODS, info.namespace, byLabel)).filter(hasUsage).map((p) => podMetrics(p, now));
  }
  return reply(items.filter((m) => matchesObject(type, m as KubeObject, selectors)), false);
}
