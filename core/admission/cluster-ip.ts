// Canonical layer admission: a Service of type ClusterIP gets a virtual IP from the service range
// (10.96.0.0/12, kube's default --service-cluster-ip-range), unique among services, and keeps it.

import type { KubeObject } from '../object-meta';
import type { WriteStore } from '../writes';

type Spec = { type?: string; clusterIP?: string; clusterIPs?: string[]; ipFamilies?: string[]; ipFamilyPolicy?: string };

// 10.96.0.0/12 has 2^20 addresses; .0 is the network and 10.96.0.1 the `kubernetes` service.
const RANGE_BASE = (10 << 24) | (96 << 16);
const RANGE_SIZE = 1 << 20;
const FIRST_FREE = 2;

export function allocateClusterIP(store: WriteStore, svc: KubeObject, seed: string): void {
  const spec = (svc.spec ??= {}) as Spec;
  if (spec.type === 'ExternalName') return;
  if (spec.clusterIP === 'None' || (!spec.clusterIP && spec.clusterIPs?.[0] === 'None')) {
    // Headless: no address, but families as for any other (service/storage/alloc.go initIPFamilyFields);
    // without a selector the policy defaults to RequireDualStack, which a single-stack cluster serves as IPv4.
    spec.clusterIP = 'None';
    spec.clusterIPs ??= ['None'];
    spec.ipFamilies ??= ['IPv4'];
    const selector = (svc.spec as { selector?: Record<string, string> }).selector;
    spec.ipFamilyPolicy ??= selector && Object.keys(selector).length ? 'SingleStack' : 'RequireDualStack';
    return;
  }
  if (!spec.clusterIP) {
    const used = new Set<string>();
    for (const other of store.objects('')) {
      const ip = (other.spec as Spec | undefined)?.clusterIP;
      if (ip) used.add(ip);
    }
    spec.clusterIP = pick(seed, used);
  }
  spec.clusterIPs ??= [spec.clusterIP];
  spec.ipFamilies ??= ['IPv4'];
  spec.ipFamilyPolicy ??= 'SingleStack';
}

/** An update that leaves clusterIP unset keeps the allocated one (kube's patchAllocatedValues). */
export function keepAllocatedClusterIP(type: { kind: string }, old: KubeObject, next: KubeObject): void {
  if (type.kind !== 'Service') return;
  const before = old.spec as Spec | undefined;
  const after = (next.spec ??= {}) as Spec;
  if (before?.clusterIP && !after.clusterIP) after.clusterIP = before.clusterIP;
  if (before?.clusterIPs && !after.clusterIPs) after.clusterIPs = before.clusterIPs;
  if (before?.ipFamilies && !after.ipFamilies) after.ipFamilies = before.ipFamilies;
  if (before?.ipFamilyPolicy && !after.ipFamilyPolicy) after.ipFamilyPolicy = before.ipFamilyPolicy;
}

// A hash of the seed picks the first candidate, then the next free address: spread, and never scanned twice.
function pick(seed: string, used: Set<string>): string {
  let h = 2166136261;
  for (const ch of seed) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  for (let i = 0; i < RANGE_SIZE; i++) {
    const offset = FIRST_FREE + ((h + i) % (RANGE_SIZE - FIRST_FREE));
    const n = RANGE_BASE + offset;
    const ip = `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
    if (!used.has(ip)) return ip;
  }
  throw new Error('service IP range exhausted');
}
