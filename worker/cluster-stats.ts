// Front door: every store's and subscribed replica's counters in one pass, for /metrics (Prometheus text) and
// /_edgeplane/topology (JSON for the console).

import { allStoredTypes, groupResource } from '../core/registry';
import type { ReplicaStats, StoreStats } from '../contract/rpc';
import { isAuthorizerName, replicaStub } from '../contract/names';
import type { Bindings } from './env';
import { storeFor } from './stores';

export interface TypeStats {
  gr: string; // core/pods
  stats: StoreStats;
  replicas: ReplicaStats[];
}

export async function collectStats(env: Bindings): Promise<TypeStats[]> {
  return Promise.all(allStoredTypes().map(async (t) => {
    const gr = groupResource(t);
    const stats = await storeFor(env, t).stats(gr);
    // Subscribers are replicas and, for the RBAC types, authorizer shards (which report to /metrics themselves).
    const names = stats.replicas.filter((name) => !isAuthorizerName(name));
    const replicas = await Promise.all(names.map((name) => replicaStub(env, name).stats(gr, name)));
    return { gr, stats, replicas };
  }));
}
