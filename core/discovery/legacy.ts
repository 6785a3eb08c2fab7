// Core: discovery documents (/version, /api, /apis, /apis/<g>, /api/v1, /apis/<g>/<v>) built from the registry,
// in kube-apiserver's legacy JSON shapes.
//
// Clients asking /api and /apis for aggregated discovery (apidiscovery.k8s.io/v2) get core/discovery/aggregated.ts
// instead; these documents answer every other Accept (client-go discovery/discovery_client.go, ContentTypeIsGVK).

import { TERMINATING_VERBS } from '../crd/crd-types';
import { EMPTY_OVERLAY, remoteGroups, type DiscoveryOverlay } from '../apiservices';
import { allResourceTypes, apiGroups, apiVersionOf, subresourceInfo, typesInGroupVersion, type ResourceType, type Subresource } from '../registry';

/** The Kubernetes release we present as; kubectl 1.32 warns only when client and server are >1 minor apart. */
export const SERVER_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0-edgeplane' } as const;

export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

export interface BuildStamp {
  gitCommit?: string;
  gitTreeState?: string;
  buildDate?: string;
}

/**
 * GET /version: every field of apimachinery pkg/version.Info as of 1.32 (the emulation* fields came later).
 * Unstamped defaults match what an unstamped kube build reports for commit and date.
 */
export function versionInfo(stamp: BuildStamp = {}): VersionInfo {
  return {
    major: SERVER_VERSION.major,
    minor: SERVER_VERSION.minor,
    gitVersion: SERVER_VERSION.gitVersion,
    gitCommit: stamp.gitCommit ?? '$Format:%H$',
    gitTreeState: stamp.gitTreeState ?? '',
    buildDate: stamp.buildDate ?? '1970-01-01T00:00:00Z',
    // There is no Go toolchain; say so rather than pretend.
    goVersion: 'none',
    compiler: 'esbuild',
    platform: 'cloudflare/workers',
  };
}

export interface APIVersions {
  kind: 'APIVersions';
  versions: string[];
  serverAddressByClientCIDRs: { clientCIDR: string; serverAddress: string }[];
}

/** GET /api. kube omits apiVersion on this one document; client-go does not need it. */
export function apiVersions(serverAddress: string): APIVersions {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

export interface APIGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface APIGroupList {
  kind: 'APIGroupList';
  apiVersion: 'v1';
  groups: APIGroup[];
}

function groupEntry(name: string, versions: string[]): APIGroup {
  const gvs = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  // The first registered version is the preferred one, as the apiserver's group priority list does.
  return { name, versions: gvs, preferredVersion: gvs[0] };
}

/** GET /apis: named groups only; the core group lives under /api. */
export function apiGroupList(overlay: DiscoveryOverlay = EMPTY_OVERLAY): APIGroupList {
  const served = apiGroups();
  // The aggregator lists every APIService's group, reachable or not (handler_apis.go).
  const remote = remoteGroups(overlay).filter((g) => !served.some((s) => s.name === g.name));
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...served, ...remote].map((g) => groupEntry(g.name, g.versions)),
  };
}

/** GET /apis/<group>; undefined when neither served nor named by an APIService (the route answers 404). */
export function apiGroup(name: string, overlay: DiscoveryOverlay = EMPTY_OVERLAY): APIGroup | undefined {
  const g = apiGroups().find((x) => x.name === name) ?? remoteGroups(overlay).find((x) => x.name === name);
  return g && { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(g.name, g.versions) };
}

export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
}

export interface APIResourceList {
  kind: 'APIResourceList';
  apiVersion?: 'v1';
  groupVersion: string;
  resources: APIResource[];
}

function mainResource(t: ResourceType): APIResource {
  const r: APIResource = {
    name: t.resource,
    singularName: t.singular,
    namespaced: t.namespaced,
    kind: t.kind,
    // A terminating CRD's type can no longer be created or changed (apiextensions discovery controller).
    verbs: t.custom?.terminating ? [...TERMINATING_VERBS] : [...t.verbs],
  };
  // shortNames and categories are `omitempty` in metav1.APIResource.
  if (t.shortNames.length) r.shortNames = [...t.shortNames];
  if (t.categories.length) r.categories = [...t.categories];
  return r;
}

// Subresource kinds and verbs as kube-apiserver registers them (core/registry.ts subresourceInfo). kubectl scale
// reads group/version/kind from the /scale entry to know its wire type (client-go scale kind resolver), and
// kubectl drain looks for pods/eviction before evicting rather than deleting.
function subresource(t: ResourceType, sub: Subresource): APIResource {
  const info = subresourceInfo(t, sub);
  // Key order as metav1.APIResource serializes: name, singularName, namespaced, group, version, kind, verbs.
  const r = { name: `${t.resource}/${sub}`, singularName: '', namespaced: t.namespaced } as APIResource;
  if (info.group !== undefined) r.group = info.group;
  if (info.version !== undefined) r.version = info.version;
  r.kind = info.kind;
  r.verbs = [...info.verbs];
  return r;
}

/**
 * GET /api/v1 and /apis/<g>/<v>: every resource plus its subresources, sorted by name as the apiserver's
 * installer sorts storage paths. undefined when the group/version is not served.
 */
export function apiResourceList(group: string, version: string): APIResourceList | undefined {
  const types = typesInGroupVersion(group, version);
  if (!types.length) return undefined;
  const resources = types
    .flatMap((t) => [mainResource(t), ...t.subresources.map((s) => subresource(t, s))])
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const groupVersion = apiVersionOf({ group, version });
  // The legacy core list has no apiVersion on the wire; named groups carry apiVersion "v1".
  return group
    ? { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources }
    : { kind: 'APIResourceList', groupVersion, resources };
}

/** Every served group/version, core first: the set discovery and /openapi/v3 enumerate. */
export function servedGroupVersions(): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const t of allResourceTypes()) {
    const key = apiVersionOf(t);
    if (!seen.has(key)) seen.set(key, { group: t.group, version: t.version });
  }
  return [...seen.values()].sort((a, b) => Number(a.group !== '') - Number(b.group !== ''));
}
