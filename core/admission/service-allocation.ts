// Canonical layer admission: a Service's clusterIP and nodePorts come from their ranges, each member to one
// Service (kubernetes pkg/registry/core/service/storage alloc.go allocateCreate/allocateUpdate, storage.go
// normalizeClusterIPs/patchAllocatedValues, strategy.go dropTypeDependentFields; messages of ipallocator and
// portallocator). What is taken is read from the store's index of stored Services (./service-ranges.ts), inside
// the write's transaction: two creates cannot both take one address, and a delete frees it by removing the holder.
// This cluster is single-stack IPv4: 10.96.0.0/12 and nodePorts 30000-32767, kube-apiserver's defaults.

import type { KubeObject } from '../object-meta';
import { internalError, invalid, StatusError, type StatusCause } from '../status';
import { duplicate, invalidValue, notSupported, required } from '../validation/names';
import { parseIPv4, parseIPv6 } from '../validation/ip';
import {
  clusterIPMember, KUBERNETES_SERVICE_MEMBER, memberIP, NODE_PORT_RANGE, nodePortMember, SERVICE_CIDR, type RangeHoldings, type ServiceAllocations,
} from './service-ranges';

type Port = { name?: string; port?: number; nodePort?: number; protocol?: string };
type Spec = {
  type?: string; clusterIP?: string; clusterIPs?: string[]; ipFamilies?: string[]; ipFamilyPolicy?: string;
  selector?: Record<string, string>; ports?: Port[]; healthCheckNodePort?: number; externalTrafficPolicy?: string;
  externalIPs?: string[]; allocateLoadBalancerNodePorts?: boolean;
};

const IP_FAMILIES = ['IPv4', 'IPv6'];
const IP_FAMILY_POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack']; // sets.List order
const BAD_IP = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

export const isCoreService = (type: { group: string; kind: string }): boolean => type.group === '' && type.kind === 'Service';

/** A source of numbers in [0, 1) from a random seed string (the store passes a fresh UUID per write). */
export function seededRandom(seed: string): () => number {
  let h = 2166136261;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 16777619) >>> 0;
  return () => {
    h = (h + 0x6d2b79f5) >>> 0; // mulberry32
    let t = Math.imul(h ^ (h >>> 15), 1 | h);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** allocateCreate: address fields made whole, then the clusterIP and nodePorts allocated or checked. */
export function allocateServiceCreate(svc: KubeObject, held: ServiceAllocations, random: () => number): void {
  const spec = specOf(svc);
  if (!spec || typeOf(spec) === 'ExternalName') return;
  // normalizeClusterIPs on create: a client that sets only the singular field gets the plural.
  if (spec.clusterIP && !spec.clusterIPs?.length) spec.clusterIPs = [spec.clusterIP];
  initIPFamilyFields(svc, spec, undefined);
  allocateClusterIPs(svc, spec, held, random);
  withTentative(held.ports, (take) => {
    if (needsNodePort(spec)) initNodePorts(svc, spec, held.ports, take, random);
    if (needsHealthCheckNodePort(spec)) allocateHealthCheckNodePort(spec, held.ports, take, random);
  });
}

/**
 * An update's request made whole before anything reads it: values allocated earlier and left out are kept
 * (patchAllocatedValues), clusterIP and clusterIPs kept in step (normalizeClusterIPs), and fields a type change
 * makes meaningless dropped when the client left them as they were (dropTypeDependentFields).
 */
export function keepAllocatedValues(old: KubeObject, next: KubeObject): void {
  let before = specOf(old);
  const after = specOf(next);
  if (!before || !after) return;
  // defaultOnReadService: a Service stored with the singular field alone reads as if it had the plural.
  if (before.clusterIP && !before.clusterIPs?.length && needsClusterIP(before)) before = { ...before, clusterIPs: [before.clusterIP] };
  patchAllocatedValues(before, after);
  normalizeUpdatedClusterIPs(before, after);
  // The address family fields an earlier write defaulted, kept as the store filled them.
  if (needsClusterIP(before) && needsClusterIP(after)) {
    if (before.ipFamilies && !after.ipFamilies) after.ipFamilies = before.ipFamilies;
    if (before.ipFamilyPolicy && !after.ipFamilyPolicy) after.ipFamilyPolicy = before.ipFamilyPolicy;
  }
  dropTypeDependentFields(before, after);
}

/** allocateUpdate: a Service leaving ExternalName gets an address; new nodePorts are allocated or checked. */
export function allocateServiceUpdate(old: KubeObject, next: KubeObject, held: ServiceAllocations, random: () => number): void {
  const before = specOf(old);
  const spec = specOf(next);
  if (!before || !spec) return;
  if (typeOf(spec) !== 'ExternalName') {
    initIPFamilyFields(next, spec, before);
    // updateClusterIPs case A; every other change of address is refused by validation (may not change once set).
    if (typeOf(before) === 'ExternalName') allocateClusterIPs(next, spec, held, random);
  }
  withTentative(held.ports, (take) => {
    if (needsNodePort(spec)) updateNodePorts(next, before, spec, held.ports, take, random);
    updateHealthCheckNodePort(next, before, spec, held.ports, take, random);
  });
}

// ---- address family fields (alloc.go initIPFamilyFields, validation.go ValidateServiceClusterIPsRelatedFields) ----

function initIPFamilyFields(svc: KubeObject, spec: Spec, before: Spec | undefined): void {
  const headless = spec.clusterIP === 'None';
  const selectorless = !spec.selector || Object.keys(spec.selector).length === 0;
  if (!spec.ipFamilyPolicy) {
    spec.ipFamilyPolicy = before?.ipFamilyPolicy ?? (headless && selectorless ? 'RequireDualStack' : 'SingleStack');
  }
  const related = clusterIPsRelatedCauses(spec);
  if (related.length) throw new StatusError(invalid('', 'Service', nameOf(svc), related));
  const causes: StatusCause[] = [];
  const clusterIPs = spec.clusterIPs ?? [];
  const families = spec.ipFamilies ?? [];
  if (spec.ipFamilyPolicy === 'SingleStack') {
    if (clusterIPs.length === 2) causes.push(invalidValue('spec.ipFamilyPolicy', spec.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
    if (families.length === 2) causes.push(invalidValue('spec.ipFamilyPolicy', spec.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
  }
  const inferred = [...families];
  for (let i = 0; i < clusterIPs.length && clusterIPs[i] !== 'None'; i++) {
    if (i < inferred.length) continue;
    const family = parseIPv4(clusterIPs[i]) ? 'IPv4' : 'IPv6';
    if (family === 'IPv6') causes.push(invalidValue(`spec.clusterIPs[${i}]`, clusterIPs, 'IPv6 is not configured on this cluster'));
    else inferred.push(family);
  }
  if (causes.length) throw new StatusError(invalid('', 'Service', nameOf(svc), causes));
  if (inferred.length > families.length) spec.ipFamilies = inferred;
  // Headless without a selector may name any family (its endpoints are the user's); served here as IPv4.
  if (headless && selectorless) {
    spec.ipFamilies ??= ['IPv4'];
    return;
  }
  if (spec.ipFamilyPolicy === 'RequireDualStack') {
    causes.push(invalidValue('spec.ipFamilyPolicy', spec.ipFamilyPolicy, 'this cluster is not configured for dual-stack services'));
  }
  (spec.ipFamilies ?? []).forEach((family, i) => {
    if (family !== 'IPv4') causes.push(invalidValue(`spec.ipFamilies[${i}]`, family, 'not configured on this cluster'));
  });
  if (causes.length) throw new StatusError(invalid('', 'Service', nameOf(svc), causes));
  if (!spec.ipFamilies?.length) spec.ipFamilies = ['IPv4'];
}

function clusterIPsRelatedCauses(spec: Spec): StatusCause[] {
  const causes: StatusCause[] = [];
  const clusterIPs = spec.clusterIPs ?? [];
  if (spec.clusterIP) {
    if (!clusterIPs.length) causes.push(required('spec.clusterIPs'));
    else if (clusterIPs[0] !== spec.clusterIP) causes.push(invalidValue('spec.clusterIPs', clusterIPs, 'first value must match `clusterIP`'));
  } else if (clusterIPs.length) {
    causes.push(invalidValue('spec.clusterIPs', clusterIPs, 'must be empty when `clusterIP` is not specified'));
  }
  const seen = new Set<string>();
  (spec.ipFamilies ?? []).forEach((family, i) => {
    if (!IP_FAMILIES.includes(family)) causes.push(notSupported(`spec.ipFamilies[${i}]`, family, IP_FAMILIES));
    if (seen.has(family)) causes.push(duplicate(`spec.ipFamilies[${i}]`, family));
    seen.add(family);
  });
  if (spec.ipFamilyPolicy && !IP_FAMILY_POLICIES.includes(spec.ipFamilyPolicy)) {
    causes.push(notSupported('spec.ipFamilyPolicy', spec.ipFamilyPolicy, IP_FAMILY_POLICIES));
  }
  let badIPs = false;
  clusterIPs.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (clusterIPs.length > 1) {
        badIPs = true;
        causes.push(invalidValue('spec.clusterIPs', clusterIPs, "'None' must be the first and only value"));
      }
      return;
    }
    if (!parseIPv4(ip) && !parseIPv6(ip)) {
      badIPs = true;
      causes.push(invalidValue(`spec.clusterIPs[${i}]`, ip, BAD_IP));
    }
  });
  if (clusterIPs.length > 2) causes.push(invalidValue('spec.clusterIPs', clusterIPs, 'may only hold up to 2 values'));
  if (badIPs) return causes;
  if (clusterIPs.length > 1) {
    const v4 = clusterIPs.filter((ip) => parseIPv4(ip)).length;
    if (clusterIPs.length !== 2 || v4 !== 1) causes.push(invalidValue('spec.clusterIPs', clusterIPs, 'may specify no more than one IP for each IP family'));
  }
  if (clusterIPs[0] !== 'None' && spec.ipFamilies?.length) {
    clusterIPs.forEach((ip, i) => {
      const family = spec.ipFamilies![i];
      if (family === undefined) return;
      const v6 = !parseIPv4(ip);
      if (family === 'IPv4' && v6) causes.push(invalidValue(`spec.clusterIPs[${i}]`, ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (family === 'IPv6' && !v6) causes.push(invalidValue(`spec.clusterIPs[${i}]`, ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return causes;
}

// ---- clusterIPs (alloc.go allocClusterIPs, ipallocator bitmap.go Allocate/AllocateNext) ----

function allocateClusterIPs(svc: KubeObject, spec: Spec, held: ServiceAllocations, random: () => number): void {
  if (spec.clusterIPs?.[0] === 'None') return; // headless: no address
  const ip = spec.clusterIPs?.[0] ?? '';
  if (!ip) {
    const member = held.ips.next(random(), random());
    if (member < 0) throw new StatusError(internalError('failed to allocate a serviceIP: range is full'));
    spec.clusterIP = memberIP(member);
    spec.clusterIPs = [spec.clusterIP];
    return;
  }
  const member = clusterIPMember(ip);
  const fail = (why: string) => new StatusError(invalid('', 'Service', nameOf(svc), [invalidValue('spec.clusterIPs', spec.clusterIPs, `failed to allocate IP ${ip}: ${why}`)]));
  if (member < 0) {
    const octets = parseIPv4(ip)!; // IPv6 was refused with the family checks
    throw fail(`the provided IP (${octets.join('.')}) is not in the valid range. The range of valid IPs is ${SERVICE_CIDR}`);
  }
  if (member === KUBERNETES_SERVICE_MEMBER && isKubernetesService(svc)) return; // its own, reserved at start
  if (held.ips.has(member)) throw fail('provided IP is already allocated');
}

/** default/kubernetes, the apiserver's own Service (pkg/controlplane/controller/kubernetesservice). */
function isKubernetesService(svc: KubeObject): boolean {
  return svc.metadata?.name === 'kubernetes' && svc.metadata?.namespace === 'default';
}

// ---- nodePorts (alloc.go initNodePorts/updateNodePorts, portallocator allocator.go) ----

/** PortAllocationOperation: members taken during one request, released again whatever its outcome. */
function withTentative(range: RangeHoldings, run: (take: (member: number) => void) => void): void {
  const taken: number[] = [];
  try {
    run((member) => {
      range.add(member);
      taken.push(member);
    });
  } finally {
    for (const member of taken) range.remove(member);
  }
}

/** portallocator Allocate's error for `port`, or undefined when it is free (and now taken). */
function allocatePort(range: RangeHoldings, take: (member: number) => void, port: number): string | undefined {
  const member = nodePortMember(port);
  if (member < 0) return `provided port is not in the valid range. The range of valid ports is ${NODE_PORT_RANGE}`;
  if (range.has(member)) return 'provided port is already allocated';
  take(member);
  return undefined;
}

function nextPort(range: RangeHoldings, take: (member: number) => void, random: () => number): number | undefined {
  const member = range.next(random(), random());
  if (member < 0) return undefined;
  take(member);
  return 30000 + member;
}

function initNodePorts(svc: KubeObject, spec: Spec, range: RangeHoldings, take: (m: number) => void, random: () => number): void {
  const ports = spec.ports ?? [];
  const byServicePort = new Map<number, number>();
  // findRequestedNodePort: the first nodePort asked for with each service port number.
  const requested = new Map<number, number>();
  for (const p of ports) if (nodePortOf(p) && !requested.has(p.port ?? 0)) requested.set(p.port ?? 0, nodePortOf(p));
  ports.forEach((p, i) => {
    if (!nodePortOf(p) && !shouldAllocateNodePorts(spec)) return;
    const allocated = byServicePort.get(p.port ?? 0) ?? 0;
    if (!allocated) {
      const np = requested.get(p.port ?? 0) ?? 0;
      if (np) {
        const err = allocatePort(range, take, np);
        if (err) throw new StatusError(invalid('', 'Service', nameOf(svc), [invalidValue(`spec.ports[${i}].nodePort`, np, err)]));
        p.nodePort = np;
      } else {
        const next = nextPort(range, take, random);
        if (next === undefined) throw new StatusError(internalError('failed to allocate a nodePort: range is full'));
        p.nodePort = next;
      }
      byServicePort.set(p.port ?? 0, p.nodePort);
    } else if (nodePortOf(p) !== allocated) {
      if (!nodePortOf(p)) p.nodePort = allocated;
      else {
        const err = allocatePort(range, take, nodePortOf(p));
        if (err) throw new StatusError(invalid('', 'Service', nameOf(svc), [invalidValue(`spec.ports[${i}].nodePort`, nodePortOf(p), err)]));
      }
    }
  });
}

function updateNodePorts(svc: KubeObject, before: Spec, spec: Spec, range: RangeHoldings, take: (m: number) => void, random: () => number): void {
  const held = new Set((before.ports ?? []).map(nodePortOf).filter((n) => n !== 0));
  const allocatedNow = new Set<number>();
  (spec.ports ?? []).forEach((p, i) => {
    const np = nodePortOf(p);
    if (!np && !shouldAllocateNodePorts(spec)) return;
    if (np) {
      if (held.has(np) || allocatedNow.has(np)) return;
      const err = allocatePort(range, take, np);
      if (err) throw new StatusError(invalid('', 'Service', nameOf(svc), [invalidValue(`spec.ports[${i}].nodePort`, np, err)]));
      allocatedNow.add(np);
    } else {
      const next = nextPort(range, take, random);
      if (next === undefined) throw new StatusError(internalError('failed to allocate a nodePort: range is full'));
      p.nodePort = next;
    }
  });
}

function allocateHealthCheckNodePort(spec: Spec, range: RangeHoldings, take: (m: number) => void, random: () => number): void {
  const requested = spec.healthCheckNodePort ?? 0;
  if (requested) {
    const err = allocatePort(range, take, requested);
    if (err) throw new StatusError(internalError(`failed to allocate requested HealthCheck NodePort ${requested}: ${err}`));
    return;
  }
  const next = nextPort(range, take, random);
  if (next === undefined) throw new StatusError(internalError('failed to allocate a HealthCheck NodePort 0: range is full'));
  spec.healthCheckNodePort = next;
}

function updateHealthCheckNodePort(svc: KubeObject, before: Spec, spec: Spec, range: RangeHoldings, take: (m: number) => void, random: () => number): void {
  const needed = needsHealthCheckNodePort(before);
  const needs = needsHealthCheckNodePort(spec);
  if (!needed && needs) allocateHealthCheckNodePort(spec, range, take, random);
  else if (needed && needs && (before.healthCheckNodePort ?? 0) !== (spec.healthCheckNodePort ?? 0)) {
    throw new StatusError(invalid('', 'Service', nameOf(svc), [invalidValue('spec.healthCheckNodePort', spec.healthCheckNodePort ?? 0,
      'cannot change healthCheckNodePort on loadBalancer service with externalTraffic=Local during update')]));
  }
}

// ---- update helpers (storage.go, strategy.go) ----

function patchAllocatedValues(before: Spec, after: Spec): void {
  if (needsClusterIP(before) && needsClusterIP(after)) {
    if (!after.clusterIP && before.clusterIP) after.clusterIP = before.clusterIP;
    if (!after.clusterIPs?.length && before.clusterIPs?.length) after.clusterIPs = before.clusterIPs;
  }
  if (needsNodePort(before) && needsNodePort(after)) {
    const inNew = new Set((after.ports ?? []).map(nodePortOf).filter((n) => n !== 0));
    const used = new Set((before.ports ?? []).map(nodePortOf).filter((n) => n !== 0 && inNew.has(n)));
    const byName = new Map<string, number>();
    for (const p of before.ports ?? []) byName.set(p.name ?? '', nodePortOf(p));
    for (const p of after.ports ?? []) {
      if (nodePortOf(p)) continue;
      const old = byName.get(p.name ?? '') ?? 0;
      if (old && !used.has(old)) p.nodePort = old;
    }
  }
  if (needsHealthCheckNodePort(before) && needsHealthCheckNodePort(after) && !after.healthCheckNodePort && before.healthCheckNodePort) {
    after.healthCheckNodePort = before.healthCheckNodePort;
  }
}

function normalizeUpdatedClusterIPs(before: Spec, after: Spec): void {
  if (before.clusterIPs?.length && !after.clusterIPs?.length && (before.clusterIP ?? '') === (after.clusterIP ?? '')) {
    after.clusterIPs = before.clusterIPs;
  }
  if ((before.clusterIP ?? '') === (after.clusterIP ?? '')) return;
  if (before.clusterIP && !after.clusterIP) {
    if (sameList(before.clusterIPs, after.clusterIPs)) delete after.clusterIPs;
  } else if (sameList(before.clusterIPs, after.clusterIPs)) {
    after.clusterIPs = [after.clusterIP!];
  }
}

function dropTypeDependentFields(before: Spec, after: Spec): void {
  if (needsClusterIP(before) && !needsClusterIP(after)) {
    if (sameList(before.clusterIPs, after.clusterIPs)) {
      delete after.clusterIP;
      delete after.clusterIPs;
    }
    if (sameList(before.ipFamilies, after.ipFamilies)) delete after.ipFamilies;
    if (before.ipFamilyPolicy === after.ipFamilyPolicy) delete after.ipFamilyPolicy;
  }
  if (needsNodePort(before) && !needsNodePort(after)) {
    const same = sameList((before.ports ?? []).map(nodePortOf), (after.ports ?? []).map(nodePortOf));
    if (same) for (const p of after.ports ?? []) delete p.nodePort;
  }
  if (needsHealthCheckNodePort(before) && !needsHealthCheckNodePort(after) && (before.healthCheckNodePort ?? 0) === (after.healthCheckNodePort ?? 0)) {
    delete after.healthCheckNodePort;
  }
  if (typeOf(before) === 'LoadBalancer' && typeOf(after) !== 'LoadBalancer'
    && before.allocateLoadBalancerNodePorts !== undefined && before.allocateLoadBalancerNodePorts === after.allocateLoadBalancerNodePorts) {
    delete after.allocateLoadBalancerNodePorts;
  }
  if (externallyAccessible(before) && !externallyAccessible(after) && (before.externalTrafficPolicy ?? '') === (after.externalTrafficPolicy ?? '')) {
    delete after.externalTrafficPolicy;
  }
}

// ---- predicates (storage.go, pkg/api/service/util.go) ----

function specOf(svc: KubeObject): Spec | undefined {
  const spec = svc.spec;
  return spec && typeof spec === 'object' && !Array.isArray(spec) ? (spec as Spec) : undefined;
}

const typeOf = (spec: Spec): string => spec.type ?? 'ClusterIP';
const nameOf = (svc: KubeObject): string => svc.metadata?.name ?? '';
const nodePortOf = (p: Port): number => (typeof p?.nodePort === 'number' ? p.nodePort : 0);
const needsClusterIP = (spec: Spec): boolean => typeOf(spec) !== 'ExternalName';
const needsNodePort = (spec: Spec): boolean => typeOf(spec) === 'NodePort' || typeOf(spec) === 'LoadBalancer';
const needsHealthCheckNodePort = (spec: Spec): boolean => typeOf(spec) === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
const shouldAllocateNodePorts = (spec: Spec): boolean =>
  typeOf(spec) === 'NodePort' || (typeOf(spec) === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
const externallyAccessible = (spec: Spec): boolean =>
  needsNodePort(spec) || (typeOf(spec) === 'ClusterIP' && (spec.externalIPs?.length ?? 0) > 0);

function sameList(a: unknown[] | undefined, b: unknown[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}
