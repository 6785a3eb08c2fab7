// Front door: the two JSON endpoints the console (/ui/) reads besides the Kubernetes API. Both are non-resource
// URLs, authenticated and authorized by RBAC like everything else (cluster-admin's `*` covers them; grant
// `nonResourceURLs: ["/_edgeplane/*"], verbs: ["get"]` to others).
// - /_edgeplane/whoami: the user, and where the edge says the client is (request.cf), with the replica location
//   it would be served from.
// - /_edgeplane/topology: per type the store's revision and each replica's revision, lag and counters.

import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { collectStats } from '../cluster-stats';
import { defaultLocation, replicaLocations } from '../replicas';
import { parseReplicaName } from '../../contract/names';

export const consoleApi = new Hono<AppEnv>();

interface CfInfo {
  colo?: string;
  continent?: string;
  country?: string;
  city?: string;
  latitude?: string;
  longitude?: string;
}

consoleApi.get('/_edgeplane/whoami', (c) => {
  const user = c.get('user');
  const cf = ((c.req.raw as { cf?: CfInfo }).cf ?? {}) as CfInfo;
  const locations = replicaLocations(c.get('settings'));
  const preferred = defaultLocation(c.req.raw);
  return c.json({
    user: { username: user.username, groups: user.groups },
    client: {
      colo: cf.colo ?? null, continent: cf.continent ?? null, country: cf.country ?? null, city: cf.city ?? null,
      latitude: cf.latitude !== undefined ? Number(cf.latitude) : null, longitude: cf.longitude !== undefined ? Number(cf.longitude) : null,
    },
    replicaLocations: locations,
    replicasPerLocation: c.get('settings').replicasPerLocation,
    servedFrom: locations.length === 0 ? 'store' : preferred && locations.includes(preferred) ? preferred : locations[0],
  });
});

consoleApi.get('/_edgeplane/topology', async (c) => {
  const types = await collectStats(c.env);
  return c.json({
    time: Date.now(),
    types: types.map(({ gr, stats, replicas }) => ({
      resource: gr,
      store: {
        revision: stats.revision, compacted: stats.compacted, objects: stats.objects, watchers: stats.watchers,
        deliveries: stats.deliveries, slowClosed: stats.slowClosed, expired: stats.expired, subscriptions: stats.subscriptions,
      },
      // Subscribers are watch-cache replicas (`<type>@<location>#<n>`) and, for the RBAC types, authorizer shards.
      replicas: replicas.flatMap((r) => {
        const parsed = parseReplicaName(r.name);
        if (!parsed) return [];
        const { location, index } = parsed;
        return {
          name: r.name, location, index, revision: r.revision, storeRevision: r.storeRevision, lag: r.lag,
          watchers: r.watchers, deliveries: r.deliveries, eventsReceived: r.eventsReceived, slowClosed: r.slowClosed, expired: r.expired,
        };
      }),
    })),
  });
});
