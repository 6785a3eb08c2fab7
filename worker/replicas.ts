// Front door: which watch-cache replica serves a client. Watches and RV "0"/NotOlderThan lists go to
// a replica for the client's location, spread over the replicas of that location; writes and
// consistent reads go to the canonical store.

import { groupResource, type ResourceType } from '../core/registry';
import { tenantOf, type WatchUser } from '../core/watch/quota';
import { PRIVILEGED_GROUP } from '../core/rbac/authorize';
import type { Bindings } from './env';
import type { Settings } from '../core/settings';
import { fnv1a32 } from '../core/hash';
import { LOCATION_HEADER, REPLICA_INDEX_HEADER } from '../contract/headers';
import { replicaName, replicaStub } from '../contract/names';

// request.cf.continent → Durable Object location hint.
const CONTINENT_HINTS: Record<string, string> = { NA: 'enam', SA: 'sam', EU: 'weur', AF: 'afr', AS: 'apac', OC: 'oc', AN: 'oc' };

// Test and operator overrides: pick the location and the replica index explicitly. Browsers cannot set headers
// on a WebSocket, so the same choice may come as query parameters (the console uses them); kube-apiserver ignores
// query parameters it does not know, and so do clients. The location `store` skips replicas: the console's
// black-box lag measurement compares a replica's arrival times with the canonical store's. The two headers
// (contract/headers.ts) are the only x-edgeplane-* headers a client may send; the internal ones are never
// forwarded. Only system:masters may choose (mayChooseReplica): anyone else could pile its watches onto the
// replica that serves someone else, or onto the store that serves every write.
export const LOCATION_PARAM = 'edgeplaneLocation';
export const REPLICA_INDEX_PARAM = 'edgeplaneReplica';
export const STORE_LOCATION = 'store';

export interface ReplicaChoice {
  name: string;
  stub: ReturnType<typeof replicaStub>;
}

/**
 * The replica serving `client` (see clientKey): in its location, the replica its key hashes to, so one
 * client's watches and lists keep landing on the same replica (warm, and resuming where it left off)
 * while different clients spread over all REPLICAS_PER_LOCATION of them.
 */
export function replicaFor(env: Bindings, settings: Settings, type: ResourceType, req: Request, client: string, mayChoose: boolean): ReplicaChoice | undefined {
  const locations = replicaLocations(settings);
  if (locations.length === 0) return undefined;
  const params = mayChoose ? new URL(req.url).searchParams : new URLSearchParams();
  const header = (name: string) => (mayChoose ? req.headers.get(name) : null);
  const asked = header(LOCATION_HEADER) ?? params.get(LOCATION_PARAM);
  if (asked === STORE_LOCATION) return undefined;
  const wanted = asked ?? defaultLocation(req);
  const location = wanted && locations.includes(wanted) ? wanted : locations[0];
  const count = settings.replicasPerLocation;
  const rawIndex = header(REPLICA_INDEX_HEADER) ?? params.get(REPLICA_INDEX_PARAM);
  const askedIndex = rawIndex === null || rawIndex.trim() === '' ? NaN : Number(rawIndex);
  const index = Number.isInteger(askedIndex) && askedIndex >= 0 ? askedIndex % count : fnv1a32(client) % count;
  const name = replicaName(groupResource(type), location, index);
  return { name, stub: replicaStub(env, name, location) };
}

/** The location hint a client is served from without overrides: its continent's. */
export function defaultLocation(req: Request): string | undefined {
  return CONTINENT_HINTS[(req as { cf?: { continent?: string } }).cf?.continent ?? ''];
}

/** The configured replica locations, in order. */
export function replicaLocations(settings: Settings): readonly string[] {
  return settings.replicaLocations;
}

/**
 * A list a replica may answer: RV "0" (any), NotOlderThan, or consistent (RV unset: the replica first
 * catches up with the store's revision); not an exact read or a continued page.
 */
export function servableByReplica(q: URLSearchParams): boolean {
  const rv = q.get('resourceVersion') ?? '';
  if (q.get('continue')) return false;
  if (rv === '') return !q.get('resourceVersionMatch');
  const match = q.get('resourceVersionMatch') ?? '';
  if (match === 'Exact') return false;
  if (match === 'NotOlderThan') return true;
  // Without a match, RV=N with a limit is the legacy exact rule (apiserver: served from etcd).
  return rv === '0' || !q.get('limit');
}

/** Whether `user` may pick a location or replica with the overrides above: system:masters only. */
export function mayChooseReplica(user: WatchUser): boolean {
  return user.groups.includes(PRIVILEGED_GROUP);
}

/**
 * Who a client is for replica placement: its tenant (a ServiceAccount's namespace, so accounts a namespace
 * admin mints cannot be named to land where it likes, else the user) and, behind Cloudflare, its address.
 */
export function clientKey(username: string, req: Request): string {
  return `${tenantOf(username)}\u0000${req.headers.get('cf-connecting-ip') ?? ''}`;
}

