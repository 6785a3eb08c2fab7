// Front door: GET /api/v1/componentstatuses[/<name>] (pkg/registry/core/componentstatus/rest.go). kube probes
// kube-controller-manager and kube-scheduler on their healthz ports and checks etcd, and answers one
// ComponentStatus per component, never stored. Here the controller manager Durable Object runs both the
// controllers and the scheduler, and the stores are the etcd: they are Healthy ("ok"), except the first two when
// CONTROLLERS is off, which then answer as an unreachable component does in kube.

import type { Context } from 'hono';
import type { ResourceRequest } from '../../core/request-info';
import type { ResourceType } from '../../core/registry';
import { StatusError, unknownError } from '../../core/status';
import { parseSelectors } from '../../core/list/options';
import { matchesObject } from '../../core/list/filter';
import { listFormat } from '../negotiation';
import { toTableIsolated } from '../../core/tables/isolated';
import { logRenderError } from '../../core/list/render';
import type { KubeObject } from '../../core/object-meta';
import type { AppEnv } from '../env';

// kube's GetServersToValidate: the two control-plane components on their secure healthz ports, then etcd.
const COMPONENTS: [string, string][] = [
  ['controller-manager', 'https://127.0.0.1:10257/healthz'],
  ['scheduler', 'https://127.0.0.1:10259/healthz'],
  ['etcd-0', ''],
];

function componentStatus(name: string, url: string, running: boolean): KubeObject {
  const healthy = !url || running;
  const condition: Record<string, string> = { type: 'Healthy', status: healthy ? 'True' : 'False' };
  if (healthy) condition.message = 'ok';
  else condition.error = `Get ${JSON.stringify(url)}: dial tcp ${new URL(url).host}: connect: connection refused`;
  return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name, creationTimestamp: null }, conditions: [condition] } as unknown as KubeObject;
}

export async function componentStatuses(c: Context<AppEnv>, type: ResourceType, info: ResourceRequest, url: URL): Promise<Response> {
  const running = c.get('settings').controllers;
  const all = COMPONENTS.map(([name, u]) => componentStatus(name, u, running));
  const format = listFormat(c.req.header('accept'), url.searchParams.get('includeObject') ?? undefined);
  const asTable = (items: KubeObject[]) => (format.as === 'Table' ? Response.json(toTableIsolated(type, items, {
    includeObject: format.includeObject, now: Date.now(), listMeta: {},
  }, logRenderError)) : Response.json(items));
  if (info.verb === 'get') {
    const one = all.find((o) => o.metadata.name === info.name);
    // rest.go Get: an unknown component is a plain error, so a 500 of unknown reason.
    if (!one) throw new StatusError(unknownError(500, `Component not found: ${info.name}`));
    return format.as === 'Table' ? asTable([one]) : Response.json(one);
  }
  const q = url.searchParams;
  const selectors = parseSelectors({ labelSelector: q.get('labelSelector') ?? '', fieldSelector: q.get('fieldSelector') ?? '' }, type);
  const items = all.filter((o) => matchesObject(type, o, selectors));
  if (format.as === 'Table') return asTable(items);
  return Response.json({ kind: 'ComponentStatusList', apiVersion: 'v1', metadata: {}, items });
}
