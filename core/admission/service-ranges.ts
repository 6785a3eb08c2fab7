// Canonical layer admission: the service clusterIP range and the nodePort range, and which of their members the
// stored Services hold. kube-apiserver keeps one bitmap per range in etcd (pkg/registry/core/service/ipallocator,
// portallocator) and a repair loop that rebuilds it from the Services; here the Services themselves are the only
// record: the index is derived from them (at load, then from every committed change), so a restart, a failed
// write or a delete can neither leak an address nor free one still in use.

import { parseIPv4 } from '../validation/ip';
import type { KubeObject } from '../object-meta';

/** kube-apiserver's default --service-cluster-ip-range. */
export const SERVICE_CIDR = '10.96.0.0/12';
/** kube-apiserver's default --service-node-port-range. */
export const NODE_PORT_RANGE = '30000-32767';

const IP_NETWORK = ((10 << 24) | (96 << 16)) >>> 0;
const IP_PREFIX = 12;
// ipallocator bitmap.go New: neither the network address nor the IPv4 broadcast address is ever handed out, so
// member 0 is 10.96.0.1 and the range has 2^20 - 2 members.
const IP_MEMBERS = 2 ** (32 - IP_PREFIX) - 2;
const NODE_PORT_BASE = 30000;
const NODE_PORT_MEMBERS = 32767 - 30000 + 1;

/**
 * calculateRangeOffset (ipallocator and portallocator): the lower members are kept for addresses users ask for;
 * automatic allocation draws from the upper members first: min(max(16, size/16), 256) for IPs (of the CIDR's
 * size), min(max(16, size/32), 128) for ports.
 */
const IP_DYNAMIC_FROM = Math.min(Math.max(16, Math.floor(2 ** (32 - IP_PREFIX) / 16)), 256);
const PORT_DYNAMIC_FROM = Math.min(Math.max(16, Math.floor(NODE_PORT_MEMBERS / 32)), 128);

/** 10.96.0.1, the `kubernetes` Service's address: kube-apiserver allocates it to itself at start. */
export const KUBERNETES_SERVICE_MEMBER = 0;

/** An IPv4 address (leading zeros allowed, as netutils.ParseIPSloppy) as its member of the service range, or -1. */
export function clusterIPMember(ip: string): number {
  const octets = parseIPv4(ip);
  if (!octets) return -1;
  const n = ((octets[0] << 24) | (octets[1] << 16) | (octets[2] << 8) | octets[3]) >>> 0;
  const member = n - IP_NETWORK - 1;
  return member >= 0 && member < IP_MEMBERS ? member : -1;
}

/** The address of a member of the service range. */
export function memberIP(member: number): string {
  const n = IP_NETWORK + 1 + member;
  return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** A nodePort as its member of the nodePort range, or -1. */
export function nodePortMember(port: number): number {
  return Number.isInteger(port) && port >= NODE_PORT_BASE && port < NODE_PORT_BASE + NODE_PORT_MEMBERS ? port - NODE_PORT_BASE : -1;
}

/**
 * The held members of one range, sorted, so that "the first free member from here" is two binary searches
 * (a run of consecutive held members has a constant member − index) rather than a walk past every holder.
 * Members are counted: Services stored before allocation was enforced may share one.
 */
export class RangeHoldings {
  private readonly counts = new Map<number, number>();
  private readonly sorted: number[] = [];

  constructor(readonly size: number, readonly dynamicFrom: number) {}

  get held(): number {
    return this.sorted.length;
  }

  has(member: number): boolean {
    return this.counts.has(member);
  }

  add(member: number): void {
    const n = this.counts.get(member) ?? 0;
    this.counts.set(member, n + 1);
    if (n === 0) this.sorted.splice(lowerBound(this.sorted, member), 0, member);
  }

  remove(member: number): void {
    const n = this.counts.get(member);
    if (n === undefined) return;
    if (n > 1) {
      this.counts.set(member, n - 1);
      return;
    }
    this.counts.delete(member);
    const i = lowerBound(this.sorted, member);
    if (this.sorted[i] === member) this.sorted.splice(i, 1);
  }

  /**
   * randomScanStrategyWithOffset.AllocateBit: from a random member of the upper block, the first free one
   * (wrapping within the block); if that block is full, the same in the lower block. `random` is in [0, 1).
   */
  next(random: number, random2 = random): number {
    if (this.sorted.length >= this.size) return -1;
    const upper = this.size - this.dynamicFrom;
    const inUpper = this.freeFrom(this.dynamicFrom + Math.floor(random * upper), this.dynamicFrom, this.size);
    if (inUpper >= 0) return inUpper;
    return this.freeFrom(Math.floor(random2 * this.dynamicFrom), 0, this.dynamicFrom);
  }

  /** The first free member at or after `start` in [from, to), wrapping to `from`; -1 if none. */
  private freeFrom(start: number, from: number, to: number): number {
    const first = this.firstFree(start, to);
    return first >= 0 ? first : this.firstFree(from, start);
  }

  private firstFree(at: number, limit: number): number {
    if (at >= limit) return -1;
    const s = this.sorted;
    const i = lowerBound(s, at);
    if (i === s.length || s[i] !== at) return at;
    // The run of consecutive held members starting at s[i] ends at the last j with s[j] - j === s[i] - i.
    const key = s[i] - i;
    let lo = i;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (s[mid] - mid === key) lo = mid;
      else hi = mid - 1;
    }
    const free = s[lo] + 1;
    return free < limit ? free : -1;
  }
}

type Spec = { type?: unknown; clusterIP?: unknown; clusterIPs?: unknown; ports?: unknown; healthCheckNodePort?: unknown; externalTrafficPolicy?: unknown };

/** What one Service holds: its clusterIPs in the range, and its nodePorts (health check included) in theirs. */
export function holdingsOf(svc: KubeObject | undefined): { ips: number[]; ports: number[] } {
  const spec = (svc?.spec ?? {}) as Spec;
  const type = spec.type ?? 'ClusterIP';
  const ips = new Set<number>();
  const ports = new Set<number>();
  if (type !== 'ExternalName') {
    const listed = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [spec.clusterIP];
    for (const ip of listed) {
      const member = typeof ip === 'string' ? clusterIPMember(ip) : -1;
      // 10.96.0.1 is held from the start, for default/kubernetes alone: no Service's delete frees it.
      if (member > KUBERNETES_SERVICE_MEMBER) ips.add(member);
    }
  }
  if (type === 'NodePort' || type === 'LoadBalancer') {
    for (const p of Array.isArray(spec.ports) ? spec.ports : []) {
      const member = typeof p?.nodePort === 'number' ? nodePortMember(p.nodePort) : -1;
      if (member >= 0) ports.add(member);
    }
  }
  if (type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local' && typeof spec.healthCheckNodePort === 'number') {
    const member = nodePortMember(spec.healthCheckNodePort);
    if (member >= 0) ports.add(member);
  }
  return { ips: [...ips], ports: [...ports] };
}

/** The clusterIPs and nodePorts every stored Service holds, kept by the Services store and updated per commit. */
export class ServiceAllocations {
  readonly ips = new RangeHoldings(IP_MEMBERS, IP_DYNAMIC_FROM);
  readonly ports = new RangeHoldings(NODE_PORT_MEMBERS, PORT_DYNAMIC_FROM);
  private readonly byKey = new Map<string, { ips: number[]; ports: number[] }>();

  constructor() {
    this.ips.add(KUBERNETES_SERVICE_MEMBER);
  }

  static of(services: Iterable<[string, KubeObject]>): ServiceAllocations {
    const a = new ServiceAllocations();
    for (const [key, svc] of services) a.track(key, svc);
    return a;
  }

  /** From stored entries (key and JSON), one parsed at a time. */
  static fromState(entries: Iterable<{ key: string; json: string }>): ServiceAllocations {
    const a = new ServiceAllocations();
    for (const e of entries) a.track(e.key, JSON.parse(e.json) as KubeObject);
    return a;
  }

  /** The Service at `key` is now `svc` (undefined: deleted): its holdings replace what it held. */
  track(key: string, svc: KubeObject | undefined): void {
    const before = this.byKey.get(key);
    if (before) {
      for (const m of before.ips) this.ips.remove(m);
      for (const m of before.ports) this.ports.remove(m);
      this.byKey.delete(key);
    }
    if (!svc) return;
    const now = holdingsOf(svc);
    if (!now.ips.length && !now.ports.length) return;
    for (const m of now.ips) this.ips.add(m);
    for (const m of now.ports) this.ports.add(m);
    this.byKey.set(key, now);
  }
}

function lowerBound(sorted: number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
