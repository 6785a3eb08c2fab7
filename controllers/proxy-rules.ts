// Controllers: the rules a kube-proxy on one node would program (kubernetes pkg/proxy: the
// EndpointSlice cache merging a service's slices, topology.go CategorizeEndpoints, and the iptables
// proxier's chains), as a pure computation over Services and EndpointSlices. Per service port:
// clusterIP:port/protocol (and the nodePort, when allocated) → the endpoints traffic goes to, with the
// statistic-mode probabilities kube writes (1/(n−i), 10 decimals; the last one unconditional) and the
// real chain names (KUBE-SVC-/KUBE-SEP- + the first 16 base32 characters of a SHA-256).

// Only addresses the API server allocated are programmed: a clusterIP outside the service range, or one that
// more than one Service claims (objects stored before allocation was enforced), goes to the oldest claimant alone.

import type { KubeObject } from '../client/types';
import { clusterIPMember, nodePortMember } from '../core/admission/service-ranges';
import { SERVICE_NAME_LABEL, serviceSpec, type Endpoint, type Slice } from './endpoint-slicing';

export interface RuleEndpoint {
  ip: string;
  port: number;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  nodeName: string | null;
  chain: string;
  probability: string | null; // null: the last, unconditional jump
}

export interface ServiceRule {
  service: string; // ns/name
  port: { name: string; protocol: string; port: number };
  clusterIP: string;
  nodePort: number | null;
  chain: string;
  endpoints: RuleEndpoint[]; // empty: REJECT
}

// kube-proxy's informers skip these (cmd/kube-proxy/app/server.go: label selector
// `!service.kubernetes.io/service-proxy-name,!service.kubernetes.io/headless`).
export const PROXY_NAME_LABEL = 'service.kubernetes.io/service-proxy-name';
export const HEADLESS = 'service.kubernetes.io/headless';

export function proxied(obj: KubeObject): boolean {
  const l = (obj.metadata.labels as Record<string, string> | undefined) ?? {};
  return !(PROXY_NAME_LABEL in l) && !(HEADLESS in l);
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Go's base32.StdEncoding of sha256(text), first 16 characters (iptables proxier portProtoHash). */
export async function chainHash(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const b of bytes) {
    buffer = (buffer << 8) | b;
    bits += 8;
    while (bits >= 5 && out.length < 16) {
      out += BASE32[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
    if (out.length >= 16) break;
  }
  return out;
}

/** computeProbability: 1/n with ten decimals, as fmt.Sprintf("%0.10f"). */
export const probability = (n: number): string => (1 / n).toFixed(10);

interface Candidate { ip: string; port: number; ready: boolean; serving: boolean; terminating: boolean; nodeName: string | null }

/** CategorizeEndpoints: ready ones; if none, serving and terminating ones; Local policy keeps this node's. */
export function selectEndpoints(all: readonly Candidate[], local: boolean, node: string): Candidate[] {
  const scoped = local ? all.filter((e) => e.nodeName === node) : all;
  const ready = scoped.filter((e) => e.ready);
  return ready.length ? ready : scoped.filter((e) => e.serving && e.terminating);
}

/**
 * The rules of `node` from every Service and EndpointSlice it sees. Slices are grouped by their
 * service-name label (endpointslicecache.go); an endpoint's first address is used; ports match by name.
 * Deterministic order: by service, then port name.
 */
export async function computeRules(node: string, services: readonly KubeObject[], slices: readonly KubeObject[]): Promise<ServiceRule[]> {
  const byService = new Map<string, Slice[]>();
  for (const s of slices) {
    if (!proxied(s)) continue;
    const l = (s.metadata.labels as Record<string, string> | undefined) ?? {};
    const svc = l[SERVICE_NAME_LABEL];
    if (!svc) continue;
    const key = `${s.metadata.namespace}/${svc}`;
    const list = byService.get(key) ?? [];
    list.push(s as Slice);
    byService.set(key, list);
  }
  const rules: ServiceRule[] = [];
  const sorted = services.filter(proxied).map((s) => ({ key: `${s.metadata.namespace}/${s.metadata.name}`, s })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const owners = addressOwners(sorted);
  for (const { key, s } of sorted) {
    const spec = serviceSpec(s) as ReturnType<typeof serviceSpec> & { internalTrafficPolicy?: string; externalTrafficPolicy?: string };
    const clusterIP = spec.clusterIP;
    if (!clusterIP || clusterIP === 'None' || spec.type === 'ExternalName') continue;
    if (owners.ips.get(clusterIPMember(clusterIP)) !== key) continue;
    const ports = [...(spec.ports ?? [])].sort((a, b) => ((a.name ?? '') < (b.name ?? '') ? -1 : 1));
    for (const p of ports) {
      const name = p.name ?? '';
      const protocol = p.protocol ?? 'TCP';
      const candidates: Candidate[] = [];
      const seen = new Set<string>();
      for (const slice of byService.get(key) ?? []) {
        const sp = (slice.ports ?? []).find((x) => (x.name ?? '') === name && (x.protocol ?? 'TCP') === protocol);
        if (!sp) continue;
        for (const e of (slice.endpoints ?? []) as Endpoint[]) {
          const ip = e.addresses?.[0];
          if (!ip || seen.has(`${ip}:${sp.port}`)) continue;
          seen.add(`${ip}:${sp.port}`);
          const c = e.conditions ?? {};
          candidates.push({ ip, port: sp.port, ready: c.ready ?? true, serving: c.serving ?? true, terminating: c.terminating ?? false, nodeName: e.nodeName ?? null });
        }
      }
      candidates.sort((a, b) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : a.port - b.port));
      const chosen = selectEndpoints(candidates, spec.internalTrafficPolicy === 'Local', node);
      const portName = `${key}${name ? `:${name}` : ''}`;
      const proto = protocol.toLowerCase();
      const endpoints: RuleEndpoint[] = [];
      for (let i = 0; i < chosen.length; i++) {
        const e = chosen[i];
        endpoints.push({ ...e, chain: `KUBE-SEP-${await chainHash(`${portName}${proto}${e.ip}:${e.port}`)}`, probability: i < chosen.length - 1 ? probability(chosen.length - i) : null });
      }
      rules.push({
        service: key, port: { name, protocol, port: p.port }, clusterIP,
        nodePort: p.nodePort !== undefined && owners.ports.get(nodePortMember(p.nodePort)) === key ? p.nodePort : null,
        chain: `KUBE-SVC-${await chainHash(`${portName}${proto}`)}`, endpoints,
      });
    }
  }
  return rules;
}

/** Per clusterIP and nodePort in range, the Service that holds it: the oldest claimant (then the first by key). */
function addressOwners(services: readonly { key: string; s: KubeObject }[]): { ips: Map<number, string>; ports: Map<number, string> } {
  const byAge = [...services].sort((a, b) => {
    const ta = String(a.s.metadata.creationTimestamp ?? '');
    const tb = String(b.s.metadata.creationTimestamp ?? '');
    return ta < tb ? -1 : ta > tb ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
  });
  const ips = new Map<number, string>();
  const ports = new Map<number, string>();
  for (const { key, s } of byAge) {
    const spec = serviceSpec(s);
    const ip = spec.clusterIP ? clusterIPMember(spec.clusterIP) : -1;
    if (ip >= 0 && !ips.has(ip)) ips.set(ip, key);
    for (const p of spec.ports ?? []) {
      const port = p.nodePort !== undefined ? nodePortMember(p.nodePort) : -1;
      if (port >= 0 && ports.get(port) === undefined) ports.set(port, key);
    }
  }
  return { ips, ports };
}
