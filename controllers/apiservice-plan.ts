// Controllers: the aggregator's availability decision for one APIService, pure (kube-aggregator pkg/controllers/
// status: the local controller and available_controller.go, 1.32). A local APIService (no `service`) is always
// Available. One with a service is checked as kube checks it — the Service exists, a ClusterIP Service has the
// port, its Endpoints exist and have a ready address for that port's name — and then by a discovery GET on an
// endpoint. The simulated cluster's pods run no processes, so that GET has nobody to answer it:
// FailedDiscoveryCheck with the refused connection, except for metrics.k8s.io/v1beta1, which edgeplane serves
// built in as the metrics-server those pods stand for (Passed once they are ready).

import { LOCAL_AVAILABLE } from '../core/apiservices';

type Obj = Record<string, any>;

export interface AvailableCondition {
  type: 'Available';
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

/** The groups a service-backed APIService may stand for because edgeplane serves them itself. */
export const BUILT_IN_AGGREGATED = new Set(['metrics.k8s.io/v1beta1']);

export function availability(apiService: Obj, service: Obj | undefined, endpoints: Obj | undefined): AvailableCondition {
  const ref = apiService?.spec?.service;
  if (!ref) return LOCAL_AVAILABLE as AvailableCondition;
  const name = String(ref.name ?? ''), namespace = String(ref.namespace ?? '');
  const port = Number.isInteger(ref.port) ? ref.port : 443;
  const no = (reason: string, message: string): AvailableCondition => ({ type: 'Available', status: 'False', reason, message });
  if (!service) return no('ServiceNotFound', `service/${name} in ${JSON.stringify(namespace)} is not present`);
  let address: { ip: string; port: number } | undefined;
  const type = service.spec?.type ?? 'ClusterIP';
  if (type === 'ClusterIP') {
    const ports: Obj[] = Array.isArray(service.spec?.ports) ? service.spec.ports : [];
    const servicePort = ports.find((p) => p?.port === port);
    if (!servicePort) return no('ServicePortError', `service/${name} in ${JSON.stringify(namespace)} is not listening on port ${port}`);
    const portName = String(servicePort.name ?? '');
    if (!endpoints) return no('EndpointsNotFound', `cannot find endpoints for service/${name} in ${JSON.stringify(namespace)}`);
    for (const subset of Array.isArray(endpoints.subsets) ? endpoints.subsets : []) {
      const p = (Array.isArray(subset?.ports) ? subset.ports : []).find((x: Obj) => String(x?.name ?? '') === portName);
      const a = Array.isArray(subset?.addresses) ? subset.addresses[0] : undefined;
      if (p && a?.ip) {
        address = { ip: String(a.ip), port: Number(p.port) };
        break;
      }
    }
    if (!address) return no('MissingEndpoints', `endpoints for service/${name} in ${JSON.stringify(namespace)} have no addresses with port name ${JSON.stringify(portName)}`);
  }
  const group = String(apiService.spec?.group ?? ''), version = String(apiService.spec?.version ?? '');
  if (BUILT_IN_AGGREGATED.has(`${group}/${version}`)) return { type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed' };
  const host = address ? `${address.ip}:${address.port}` : `${name}.${namespace}.svc:${port}`;
  const url = `https://${host}${apiService.metadata?.name === 'v1.' ? `/api/${version}` : `/apis/${group}/${version}`}`;
  return no('FailedDiscoveryCheck', `failing or missing response from ${url}: Get ${JSON.stringify(url)}: dial tcp ${host}: connect: connection refused`);
}

/** SetAPIServiceCondition: the Available condition replaced, its transition time kept while the status holds. */
export function withCondition(status: Obj | undefined, c: AvailableCondition, now: string): Obj {
  const conditions: Obj[] = Array.isArray(status?.conditions) ? structuredClone(status!.conditions) : [];
  const i = conditions.findIndex((x) => x?.type === 'Available');
  const prior = i >= 0 ? conditions[i] : undefined;
  const next = { type: c.type, status: c.status, lastTransitionTime: prior && prior.status === c.status ? prior.lastTransitionTime : now, reason: c.reason, message: c.message };
  if (i >= 0) conditions[i] = next;
  else conditions.push(next);
  return { ...(status ?? {}), conditions };
}
