// Core: aggregated discovery (apidiscovery.k8s.io/v2 APIGroupDiscoveryList), which kubectl and client-go
// ask /api and /apis for first, so one request per root replaces one per group-version (apiserver
// pkg/endpoints/discovery/aggregated; the CRD entries as apiextensions customresource_discovery_controller.go
// publishes them). Built from the same registry as the legacy documents (core/discovery/legacy.ts).

import { TERMINATING_VERBS } from '../crd/crd-types';
import { allResourceTypes, apiGroups, subresourceInfo, type ResourceType, type Subresource } from '../registry';
import { EMPTY_OVERLAY, remoteGroups, type DiscoveryOverlay } from '../apiservices';

export const AGGREGATED_VERSIONS = ['v2', 'v2beta1'] as const;
export type AggregatedVersion = (typeof AGGREGATED_VERSIONS)[number];

/** The Content-Type of an aggregated answer, which client-go checks before decoding it as one. */
export function aggregatedContentType(v: AggregatedVersion): string {
  return `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`;
}

/**
 * Which aggregated version an Accept header asks for, in the header's order of preference (q values
 * respected), or undefined when the client wants the legacy documents (no aggregated media type, or a
 * plain JSON type preferred before it).
 */
export function negotiateAggregated(accept: string | undefined): AggregatedVersion | undefined {
  if (!accept) return undefined;
  const ranges = accept.split(',').map((part, i) => {
    const [type, ...params] = part.split(';').map((s) => s.trim());
    const p = new Map(params.map((x) => {
      const eq = x.indexOf('=');
      return [x.slice(0, eq).trim().toLowerCase(), x.slice(eq + 1).trim()] as const;
    }));
    const q = p.has('q') ? Number(p.get('q')) : 1;
    return { type: type.toLowerCase(), p, q: Number.isFinite(q) ? q : 0, i };
  }).filter((r) => r.q > 0);
  ranges.sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranges) {
    if (r.p.has('g') || r.p.has('as')) {
      if (r.type !== 'application/json' || r.p.get('g') !== 'apidiscovery.k8s.io' || r.p.get('as') !== 'APIGroupDiscoveryList') continue;
      const v = r.p.get('v');
      if (v === 'v2' || v === 'v2beta1') return v;
      continue;
    }
    // A plain media type the legacy documents satisfy comes first: serve those.
    if (r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*') return undefined;
  }
  return undefined;
}

interface GVK {
  group: string;
  version: string;
  kind: string;
}

export interface APISubresourceDiscovery {
  subresource: string;
  responseKind: GVK;
  verbs: string[];
}

export interface APIResourceDiscovery {
  resource: string;
  responseKind: GVK;
  scope: 'Namespaced' | 'Cluster';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: APISubresourceDiscovery[];
}

export interface APIVersionDiscovery {
  version: string;
  resources?: APIResourceDiscovery[]; // omitted for a Stale version (kube's omitempty)
  freshness: 'Current' | 'Stale';
}

export interface APIGroupDiscovery {
  metadata: { name?: string; creationTimestamp: null };
  versions: APIVersionDiscovery[];
}

export interface APIGroupDiscoveryList {
  kind: 'APIGroupDiscoveryList';
  apiVersion: string;
  metadata: Record<string, never>;
  items: APIGroupDiscovery[];
}

function subresourceEntry(t: ResourceType, sub: Subresource, own: GVK): APISubresourceDiscovery {
  const info = subresourceInfo(t, sub);
  // Another group's kind is named in full; the parent's own group leaves group and version as the parent's entry does.
  const responseKind = info.group !== undefined ? { group: info.group, version: info.version!, kind: info.kind } : { ...own, kind: info.kind };
  return { subresource: sub, responseKind, verbs: [...info.verbs] };
}

function resourceEntry(t: ResourceType): APIResourceDiscovery {
  // Built-ins leave group and version empty (the entry's own); CRDs name them (apiextensions does).
  const own: GVK = t.custom ? { group: t.group, version: t.version, kind: t.kind } : { group: '', version: '', kind: t.kind };
  const r: APIResourceDiscovery = {
    resource: t.resource,
    responseKind: own,
    scope: t.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: t.singular,
    verbs: t.custom?.terminating ? [...TERMINATING_VERBS] : [...t.verbs],
  };
  if (t.shortNames.length) r.shortNames = [...t.shortNames];
  if (t.categories.length) r.categories = [...t.categories];
  if (t.subresources.length) r.subresources = [...t.subresources].sort().map((s) => subresourceEntry(t, s, own));
  return r;
}

function byName(a: APIResourceDiscovery, b: APIResourceDiscovery): number {
  return a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0;
}

/** Every type once, grouped by group and version (one pass over the registry). */
function index(): Map<string, Map<string, ResourceType[]>> {
  const out = new Map<string, Map<string, ResourceType[]>>();
  for (const t of allResourceTypes()) {
    let versions = out.get(t.group);
    if (!versions) out.set(t.group, (versions = new Map()));
    const list = versions.get(t.version);
    if (list) list.push(t);
    else versions.set(t.version, [t]);
  }
  return out;
}

function versionEntries(versions: Map<string, ResourceType[]> | undefined, order: string[], stale?: (v: string) => boolean): APIVersionDiscovery[] {
  return order.flatMap((v): APIVersionDiscovery[] => {
    // A version behind an unavailable APIService: listed without resources, Stale (the aggregator's failed fetch).
    if (stale?.(v)) return [{ version: v, freshness: 'Stale' as const }];
    const types = versions?.get(v);
    if (!types?.length) return [];
    return [{ version: v, resources: types.map(resourceEntry).sort(byName), freshness: 'Current' as const }];
  });
}

function list(v: AggregatedVersion, items: APIGroupDiscovery[]): APIGroupDiscoveryList {
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${v}`, metadata: {}, items };
}

/** GET /api, aggregated: the core group as the one item (its name is empty, so omitted). */
export function aggregatedCore(v: AggregatedVersion): APIGroupDiscoveryList {
  const versions = index().get('');
  return list(v, [{ metadata: { creationTimestamp: null }, versions: versionEntries(versions, ['v1']) }]);
}

/**
 * GET /apis, aggregated: every named group, in /apis order, each with its versions, preferred first; with the
 * APIServices' overlay, the built-in versions behind an unavailable APIService and the groups only a
 * service-backed APIService names are Stale entries without resources.
 */
export function aggregatedGroups(v: AggregatedVersion, overlay: DiscoveryOverlay = EMPTY_OVERLAY): APIGroupDiscoveryList {
  const all = index();
  const items = apiGroups().map((g) => ({
    metadata: { name: g.name, creationTimestamp: null }, versions: versionEntries(all.get(g.name), g.versions, (ver) => overlay.stale.has(`${g.name}/${ver}`)),
  }));
  for (const g of remoteGroups(overlay)) {
    if (all.has(g.name)) continue;
    items.push({ metadata: { name: g.name, creationTimestamp: null }, versions: g.versions.map((ver) => ({ version: ver, freshness: 'Stale' as const })) });
  }
  return list(v, items.filter((i) => i.versions.length));
}
