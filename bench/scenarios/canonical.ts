// Scenario 6: the canonical store's load per write as the number of watchers grows, with and without
// replicas: messages it sends (frames to its own watchers + pushes to replicas, from /metrics) and
// workerd CPU per write (/proc; the store and its replicas share the one workerd process locally).

import type { FanoutResult } from './fanout';
import { round } from '../lib/stats';

export interface CanonicalRow {
  variant: string;
  transport: string;
  watchers: number;
  writes: number;
  storeMessagesPerWrite: number; // frames to its own watchers + replica pushes
  replicaPushesPerWrite: number;
  replicaDeliveriesPerWrite: number;
  workerdCpuMsPerWrite: number;
  foreignShare: number;
}

/** Rows from fixed-rate edgeplane fan-out runs (W = 0 included), one per variant/transport/W. */
export function canonicalRows(results: FanoutResult[]): CanonicalRow[] {
  return results
    .filter((r) => r.system === 'edgeplane' && r.mode === 'fixed' && r.counters && r.counters.storeWrites > 0)
    .map((r) => {
      const c = r.counters!;
      const w = c.storeWrites;
      return {
        variant: r.variant,
        transport: r.transport,
        watchers: r.watchers,
        writes: w,
        storeMessagesPerWrite: round((c.storeDeliveries + c.replicaMessages) / w, 2),
        replicaPushesPerWrite: round(c.replicaMessages / w, 2),
        replicaDeliveriesPerWrite: round(c.replicaDeliveries / w, 2),
        workerdCpuMsPerWrite: round((r.cpu.processes.server ?? NaN) / w, 3),
        foreignShare: r.cpu.foreignShare,
      };
    })
    .sort((a, b) => a.variant.localeCompare(b.variant) || a.transport.localeCompare(b.transport) || a.watchers - b.watchers);
}
