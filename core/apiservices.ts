// Canonical layer: the APIServices kube-apiserver registers for the group versions it serves itself (kube-aggregator's
// autoregister controller over pkg/controlplane apiVersionPriorities, 1.32): one `<version>.<group>` per served
// group version, `service` unset (local), with kube's group and version priorities. edgeplane also serves
// metrics.k8s.io/v1beta1 built in, so its APIService is local too, with metrics-server's priorities (100/100).
// The priorities are data from kubernetes (Apache-2.0).

import { RESOURCE_TYPES, sortVersions } from './registry';

// group/version → [groupPriorityMinimum, versionPriority]
const PRIORITIES: Record<string, [number, number]> = {
  '/v1': [18000, 1],
  'apiregistration.k8s.io/v1': [18000, 15],
  'apps/v1': [17800, 15],
  'events.k8s.io/v1': [17750, 15],
  'authentication.k8s.io/v1': [17700, 15],
  'authorization.k8s.io/v1': [17600, 15],
  'autoscaling/v1': [17500, 15],
  'autoscaling/v2': [17500, 30],
  'batch/v1': [17400, 15],
  'certificates.k8s.io/v1': [17300, 15],
  'networking.k8s.io/v1': [17200, 15],
  'policy/v1': [17100, 15],
  'rbac.authorization.k8s.io/v1': [17000, 15],
  'storage.k8s.io/v1': [16800, 15],
  'admissionregistration.k8s.io/v1': [16700, 15],
  'apiextensions.k8s.io/v1': [16700, 15],
  'scheduling.k8s.io/v1': [16600, 15],
  'coordination.k8s.io/v1': [16500, 15],
  'node.k8s.io/v1': [16300, 15],
  'discovery.k8s.io/v1': [16200, 15],
  'flowcontrol.apiserver.k8s.io/v1': [16100, 21],
  'metrics.k8s.io/v1beta1': [100, 100],
};

export const API_SERVICE_PRIORITIES: Readonly<Record<string, [number, number]>> = PRIORITIES;

/** `v1.` for the core group, `v1.apps`, `v1beta1.metrics.k8s.io`: kube's APIService name for a group version. */
export const apiServiceName = (group: string, version: string): string => `${version}.${group}`;

/** Every group version the registry serves built in, in its order, as kube's local APIServices. */
export function localApiServices(): object[] {
  const seen = new Set<string>();
  const out: object[] = [];
  for (const t of RESOURCE_TYPES) {
    const gv = `${t.group}/${t.version}`;
    if (seen.has(gv)) continue;
    seen.add(gv);
    const [groupPriorityMinimum, versionPriority] = PRIORITIES[gv] ?? [1000, 15];
    out.push({
      // autoregister's AddAPIServiceToSyncOnStart label: kept while the server serves the group version.
      metadata: { name: apiServiceName(t.group, t.version), labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } },
      spec: { group: t.group, version: t.version, groupPriorityMinimum, versionPriority },
    });
  }
  return out;
}

/** The condition kube's local availability controller gives an APIService without a service. */
export const LOCAL_AVAILABLE = { type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' };

/** Whether an APIService's Available condition is True (kube's proxy serves it only then). */
export function isApiServiceAvailable(apiService: unknown): boolean {
  const conditions = (apiService as { status?: { conditions?: unknown } } | undefined)?.status?.conditions;
  return Array.isArray(conditions) && conditions.some((c) => c?.type === 'Available' && c?.status === 'True');
}

/**
 * What the aggregator's discovery makes of the APIServices that hand a group version to a Service (kube-aggregator
 * pkg/apiserver handler_discovery.go, handler_apis.go, 1.32): every APIService's group is listed, and a version
 * whose discovery cannot be fetched — any not Available, since its proxy answers 503 — is published in aggregated
 * discovery with no resources and freshness Stale (kubectl: "stale GroupVersion discovery"). edgeplane proxies to
 * no Service, so `stale` holds the service-backed group versions it serves built in (metrics.k8s.io) while their
 * APIService is unavailable, and `remote` every other service-backed group version.
 */
export interface DiscoveryOverlay {
  stale: ReadonlySet<string>; // "group/version" served built in, hidden behind an unavailable APIService
  remote: { group: string; version: string; groupPriorityMinimum: number; versionPriority: number }[];
}

export const EMPTY_OVERLAY: DiscoveryOverlay = { stale: new Set(), remote: [] };

export function discoveryOverlay(apiServices: readonly unknown[], servedBuiltIn: (group: string, version: string) => boolean): DiscoveryOverlay {
  const stale = new Set<string>();
  const remote: DiscoveryOverlay['remote'] = [];
  for (const a of apiServices as { spec?: Record<string, unknown> }[]) {
    const spec = a?.spec;
    if (!spec?.service || typeof spec.group !== 'string' || !spec.group || typeof spec.version !== 'string' || !spec.version) continue;
    if (servedBuiltIn(spec.group, spec.version)) {
      if (!isApiServiceAvailable(a)) stale.add(`${spec.group}/${spec.version}`);
      continue;
    }
    remote.push({
      group: spec.group, version: spec.version,
      groupPriorityMinimum: Number.isInteger(spec.groupPriorityMinimum) ? (spec.groupPriorityMinimum as number) : 0,
      versionPriority: Number.isInteger(spec.versionPriority) ? (spec.versionPriority as number) : 0,
    });
  }
  // handler_apis.go SortedByGroupAndVersion: groups by priority then name, versions by priority then kube's version order.
  const versionRank = new Map(sortVersions(remote.map((r) => r.version)).map((v, i) => [v, i]));
  remote.sort((x, y) => y.groupPriorityMinimum - x.groupPriorityMinimum || (x.group < y.group ? -1 : x.group > y.group ? 1 : 0)
    || y.versionPriority - x.versionPriority || versionRank.get(x.version)! - versionRank.get(y.version)!);
  return { stale, remote };
}

/** The remote groups, in order, each with its versions in order. */
export function remoteGroups(o: DiscoveryOverlay): { name: string; versions: string[] }[] {
  const out: { name: string; versions: string[] }[] = [];
  for (const r of o.remote) {
    const last = out[out.length - 1];
    if (last?.name === r.group) {
      if (!last.versions.includes(r.version)) last.versions.push(r.version);
    } else if (!out.some((g) => g.name === r.group)) out.push({ name: r.group, versions: [r.version] });
  }
  return out;
}
