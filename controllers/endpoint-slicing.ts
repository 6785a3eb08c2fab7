// Controllers: what the EndpointSlice controller computes for one Service (kubernetes/endpointslice
// utils.go podToEndpoint/getEndpointPorts and reconciler.go reconcileByAddressType), as pure functions:
// the endpoints its selected pods stand for, the slice ports (targetPort resolved per pod, numbers and
// named container ports), and the minimal set of slice writes that brings the existing slices there.
// Packing follows kube: endpoints grouped by their resolved port set, at most maxEndpointsPerSlice (100)
// per slice, unchanged slices untouched, changed endpoints updated in place, new endpoints filling the
// slice with room before new slices are created, and one placeholder slice when a Service has none.

import type { KubeObject } from '../client/types';
import { isPodReady } from './pods';

export const MAX_ENDPOINTS_PER_SLICE = 100; // --max-endpoints-per-slice default
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const CONTROLLER_NAME = 'endpointslice-controller.k8s.io';
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';
export const ZONE_LABEL = 'topology.kubernetes.io/zone';

export interface ServicePort { name?: string; port: number; protocol?: string; targetPort?: number | string; appProtocol?: string; nodePort?: number }
export interface ServiceSpec {
  selector?: Record<string, string> | null;
  ports?: ServicePort[];
  clusterIP?: string;
  type?: string;
  publishNotReadyAddresses?: boolean;
  ipFamilies?: string[];
}
export interface SlicePort { name: string; port: number; protocol: string; appProtocol?: string }
export interface Endpoint {
  addresses: string[];
  conditions: { ready: boolean; serving: boolean; terminating: boolean };
  nodeName?: string;
  zone?: string;
  targetRef: { kind: 'Pod'; namespace: string; name: string; uid: string };
}
export interface Slice extends KubeObject {
  addressType: string;
  endpoints: Endpoint[] | null;
  ports: SlicePort[] | null;
}

interface PodSpec { nodeName?: string; containers?: { ports?: { name?: string; containerPort: number; protocol?: string }[] }[] }
interface PodStatusIPs { phase?: string; podIP?: string; podIPs?: { ip: string }[] }

export const serviceSpec = (svc: KubeObject): ServiceSpec => (svc.spec as ServiceSpec | undefined) ?? {};

/** FindPort (pkg/api/v1/pod/util.go): a number as is; a name looks up the container port of that name and protocol. */
export function resolveTargetPort(pod: KubeObject, port: ServicePort): number | undefined {
  const target = port.targetPort ?? port.port;
  if (typeof target === 'number') return target;
  if (/^[0-9]+$/.test(target)) return Number(target);
  const protocol = port.protocol ?? 'TCP';
  for (const c of (pod.spec as PodSpec | undefined)?.containers ?? []) {
    for (const p of c.ports ?? []) if (p.name === target && (p.protocol ?? 'TCP') === protocol) return p.containerPort;
  }
  return undefined;
}

/** getEndpointPorts: one slice port per service port the pod resolves; `name` always present (kubectl describe reads it). */
export function slicePorts(svc: KubeObject, pod: KubeObject): SlicePort[] {
  const out: SlicePort[] = [];
  for (const p of serviceSpec(svc).ports ?? []) {
    const port = resolveTargetPort(pod, p);
    if (port === undefined) continue;
    out.push({ name: p.name ?? '', port, protocol: p.protocol ?? 'TCP', ...(p.appProtocol ? { appProtocol: p.appProtocol } : {}) });
  }
  return out;
}

export function podIPs(pod: KubeObject): string[] {
  const s = (pod.status as PodStatusIPs | undefined) ?? {};
  if (s.podIPs?.length) return s.podIPs.map((x) => x.ip);
  return s.podIP ? [s.podIP] : [];
}

const isIPv6 = (ip: string) => ip.includes(':');

/** ShouldPodBeInEndpoints(pod, includeTerminating=true): not terminal, has an IP. */
export function podInEndpoints(pod: KubeObject): boolean {
  const phase = ((pod.status as PodStatusIPs | undefined) ?? {}).phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  return podIPs(pod).length > 0;
}

/** podToEndpoint: addresses of the slice's family; serving = pod Ready; ready = serving and not terminating. */
export function podToEndpoint(svc: KubeObject, pod: KubeObject, addressType: string, zoneOf: (node: string) => string | undefined): Endpoint | undefined {
  const addresses = podIPs(pod).filter((ip) => (addressType === 'IPv6') === isIPv6(ip));
  if (!addresses.length) return undefined;
  const serving = isPodReady(pod);
  const terminating = Boolean(pod.metadata.deletionTimestamp);
  const nodeName = (pod.spec as PodSpec | undefined)?.nodeName;
  const zone = nodeName ? zoneOf(nodeName) : undefined;
  return {
    addresses: [addresses[0]],
    conditions: { ready: Boolean(serviceSpec(svc).publishNotReadyAddresses) || (serving && !terminating), serving, terminating },
    ...(nodeName ? { nodeName } : {}),
    ...(zone ? { zone } : {}),
    targetRef: { kind: 'Pod', namespace: pod.metadata.namespace!, name: pod.metadata.name!, uid: pod.metadata.uid as string },
  };
}

export const portsKey = (ports: readonly SlicePort[]): string =>
  JSON.stringify([...ports].map((p) => [p.name, p.port, p.protocol, p.appProtocol ?? '']).sort());
const endpointKey = (e: Endpoint): string => `${e.targetRef.namespace}/${e.targetRef.name}/${e.addresses[0]}`;
const endpointJson = (e: Endpoint): string => JSON.stringify([e.addresses, e.conditions, e.nodeName ?? '', e.zone ?? '', e.targetRef]);

export interface DesiredGroup { ports: SlicePort[]; endpoints: Map<string, Endpoint> }

/** The endpoints each resolved port set should hold, for one address type. */
export function desiredEndpoints(svc: KubeObject, pods: readonly KubeObject[], addressType: string, zoneOf: (node: string) => string | undefined): Map<string, DesiredGroup> {
  const groups = new Map<string, DesiredGroup>();
  for (const pod of pods) {
    if (!podInEndpoints(pod)) continue;
    const ep = podToEndpoint(svc, pod, addressType, zoneOf);
    if (!ep) continue;
    const ports = slicePorts(svc, pod);
    const key = portsKey(ports);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { ports, endpoints: new Map() }));
    g.endpoints.set(endpointKey(ep), ep);
  }
  return groups;
}

/** Labels of a managed slice: the service's own, plus service-name, managed-by and headless (reconciler.go setEndpointSliceLabels). */
export function sliceLabels(svc: KubeObject): Record<string, string> {
  const labels: Record<string, string> = { ...((svc.metadata.labels as Record<string, string> | undefined) ?? {}) };
  delete labels[HEADLESS_LABEL];
  labels[SERVICE_NAME_LABEL] = svc.metadata.name!;
  labels[MANAGED_BY_LABEL] = CONTROLLER_NAME;
  if (serviceSpec(svc).clusterIP === 'None') labels[HEADLESS_LABEL] = '';
  return labels;
}

export function ownerRef(svc: KubeObject) {
  return { apiVersion: 'v1', kind: 'Service', name: svc.metadata.name!, uid: svc.metadata.uid as string, controller: true, blockOwnerDeletion: true };
}

export function newSlice(svc: KubeObject, addressType: string, ports: SlicePort[], endpoints: Endpoint[]): Slice {
  return {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: { generateName: `${svc.metadata.name}-`, namespace: svc.metadata.namespace, labels: sliceLabels(svc), ownerReferences: [ownerRef(svc)] },
    addressType, endpoints, ports,
  };
}

export interface SlicePlan { create: Slice[]; update: Slice[]; delete: Slice[] }

const sameLabels = (a: Record<string, string> | undefined, b: Record<string, string>) => {
  const ak = Object.keys(a ?? {});
  return ak.length === Object.keys(b).length && ak.every((k) => a![k] === b[k]);
};

/**
 * reconcileByAddressType: the writes that turn `existing` (this controller's slices of `addressType`
 * for the service) into slices holding exactly the desired endpoints. Linear in endpoints + slices.
 */
export function planSlices(svc: KubeObject, existing: readonly Slice[], desired: Map<string, DesiredGroup>, addressType: string, max = MAX_ENDPOINTS_PER_SLICE): SlicePlan {
  const plan: SlicePlan = { create: [], update: [], delete: [] };
  const labels = sliceLabels(svc);
  const byPorts = new Map<string, Slice[]>();
  for (const s of existing) {
    const key = portsKey(s.ports ?? []);
    const list = byPorts.get(key) ?? [];
    list.push(s);
    byPorts.set(key, list);
  }
  let holding = 0; // slices that will hold endpoints, for the placeholder decision
  for (const [key, group] of desired) {
    const slices = byPorts.get(key) ?? [];
    byPorts.delete(key);
    const wanted = new Map(group.endpoints);
    const withRoom: { slice: Slice; endpoints: Endpoint[]; changed: boolean }[] = [];
    for (const s of slices) {
      let changed = false;
      const kept: Endpoint[] = [];
      for (const e of s.endpoints ?? []) {
        const k = endpointKey(e);
        const want = wanted.get(k);
        if (!want) { changed = true; continue; }
        wanted.delete(k);
        if (endpointJson(want) !== endpointJson(e)) changed = true;
        kept.push(want);
      }
      if (!kept.length) { plan.delete.push(s); continue; }
      withRoom.push({ slice: s, endpoints: kept, changed });
    }
    // New endpoints fill the slices closest to full first (getSliceToFill), then new slices.
    const fresh = [...wanted.values()];
    withRoom.sort((a, b) => b.endpoints.length - a.endpoints.length);
    for (const w of withRoom) {
      while (fresh.length && w.endpoints.length < max) {
        w.endpoints.push(fresh.shift()!);
        w.changed = true;
      }
    }
    for (const w of withRoom) {
      const labelsChanged = !sameLabels(w.slice.metadata.labels as Record<string, string> | undefined, labels);
      if (w.changed || labelsChanged) {
        plan.update.push({ ...w.slice, metadata: { ...w.slice.metadata, labels }, endpoints: w.endpoints, ports: group.ports });
      }
      holding++;
    }
    for (let i = 0; i < fresh.length; i += max) {
      const chunk = fresh.slice(i, i + max);
      // A slice about to be deleted is reused instead (reconciler.go finalize: deletes paired with creates become updates).
      const reuse = plan.delete.pop();
      if (reuse) plan.update.push({ ...reuse, metadata: { ...reuse.metadata, labels }, endpoints: chunk, ports: group.ports });
      else plan.create.push(newSlice(svc, addressType, group.ports, chunk));
      holding++;
    }
  }
  // Slices of port sets no pod resolves any more.
  for (const slices of byPorts.values()) plan.delete.push(...slices);
  // A service with no endpoints keeps exactly one empty placeholder slice (reconciler.go placeholderSliceCompare).
  if (!holding) {
    const isPlaceholder = (s: Slice) => !(s.endpoints?.length) && !(s.ports?.length);
    const existingPlaceholder = plan.delete.find(isPlaceholder);
    if (existingPlaceholder) {
      plan.delete = plan.delete.filter((s) => s !== existingPlaceholder);
      if (!sameLabels(existingPlaceholder.metadata.labels as Record<string, string> | undefined, labels)) {
        plan.update.push({ ...existingPlaceholder, metadata: { ...existingPlaceholder.metadata, labels } });
      }
    } else {
      const reuse = plan.delete.pop();
      if (reuse) plan.update.push({ ...reuse, metadata: { ...reuse.metadata, labels }, endpoints: [], ports: [] });
      else plan.create.push(newSlice(svc, addressType, [], []));
    }
  }
  return plan;
}

/** The address type of a service's slices (IPv4 unless its only family is IPv6). */
export function addressTypeOf(svc: KubeObject): string {
  return serviceSpec(svc).ipFamilies?.[0] === 'IPv6' ? 'IPv6' : 'IPv4';
}
