// Front door: every store's and subscribed replica's counters in one pass, for /metrics (Prometheus text) and
// /_edgeplane/topology (JSON for the console).

import { allStoredTypes, groupResource } from '../core/registry';
import type { StoreStats } from '../durable-objects/resource-store';
import type { ReplicaStats } from '../durable-objects/watch-replica';
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
    const replicas = await Promise.all(stats.replicas.map((name) => env.REPLICA.get(env.REPLICA.idFromName(name)).stats(gr, name)));
    return { gr, stats, replicas };
  }));
}
