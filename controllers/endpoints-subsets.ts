// Controllers: the legacy core/v1 Endpoints of a Service (kubernetes pkg/controller/endpoint
// endpoints_controller.go syncService + pkg/api/v1/endpoints RepackSubsets), as a pure function: ready
// pods under `addresses`, the others under `notReadyAddresses`, terminating pods left out (unless
// publishNotReadyAddresses), grouped into subsets by resolved port set, addresses sorted by IP.

import type { KubeObject } from '../client/types';
import { isPodReady } from './pods';
import { HEADLESS_LABEL, podInEndpoints, podIPs, resolveTargetPort, serviceSpec } from './endpoint-slicing';

export interface EndpointAddress { ip: string; nodeName?: string; targetRef: { kind: 'Pod'; namespace: string; name: string; uid: string } }
export interface EndpointPort { name?: string; port: number; protocol: string; appProtocol?: string }
export interface Subset { addresses?: EndpointAddress[]; notReadyAddresses?: EndpointAddress[]; ports?: EndpointPort[] }

const byIP = (a: EndpointAddress, b: EndpointAddress) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : a.targetRef.uid < b.targetRef.uid ? -1 : 1);

export function endpointsSubsets(svc: KubeObject, pods: readonly KubeObject[]): Subset[] {
  const spec = serviceSpec(svc);
  const publishNotReady = Boolean(spec.publishNotReadyAddresses);
  const groups = new Map<string, { ports: EndpointPort[]; ready: EndpointAddress[]; notReady: EndpointAddress[] }>();
  for (const pod of pods) {
    if (!podInEndpoints(pod)) continue;
    if (pod.metadata.deletionTimestamp && !publishNotReady) continue; // ShouldPodBeInEndpoints(pod, publishNotReady)
    const ip = podIPs(pod)[0];
    const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
    const address: EndpointAddress = {
      ip, ...(nodeName ? { nodeName } : {}),
      targetRef: { kind: 'Pod', namespace: pod.metadata.namespace!, name: pod.metadata.name!, uid: pod.metadata.uid as string },
    };
    const ports: EndpointPort[] = [];
    for (const p of spec.ports ?? []) {
      const port = resolveTargetPort(pod, p);
      if (port === undefined) continue;
      ports.push({ ...(p.name ? { name: p.name } : {}), port, protocol: p.protocol ?? 'TCP', ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}) });
    }
    if (!ports.length && spec.ports?.length) continue;
    const key = JSON.stringify(ports.map((p) => [p.name ?? '', p.port, p.protocol]).sort());
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { ports, ready: [], notReady: [] }));
    (publishNotReady || isPodReady(pod) ? g.ready : g.notReady).push(address);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, g]) => ({
    ...(g.ready.length ? { addresses: g.ready.sort(byIP) } : {}),
    ...(g.notReady.length ? { notReadyAddresses: g.notReady.sort(byIP) } : {}),
    ports: g.ports,
  }));
}

/** The Endpoints object's labels: the service's, plus the headless marker (endpoints_controller.go). */
export function endpointsLabels(svc: KubeObject): Record<string, string> {
  const labels: Record<string, string> = { ...((svc.metadata.labels as Record<string, string> | undefined) ?? {}) };
  delete labels[HEADLESS_LABEL];
  if (serviceSpec(svc).clusterIP === 'None') labels[HEADLESS_LABEL] = '';
  return labels;
}
