// Front door: /metrics in Prometheus text format, one series per resource type, read from each store.

import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { groupResource, RESOURCE_TYPES } from '../../core/registry';
import type { StoreStats } from '../../durable-objects/resource-store';
import { storeFor } from '../stores';

export const metrics = new Hono<AppEnv>();

const SERIES: { name: string; help: string; type: 'gauge' | 'counter'; value: (s: StoreStats) => number }[] = [
  { name: 'edgeplane_store_revision', help: 'Newest revision of the canonical store.', type: 'gauge', value: (s) => s.revision },
  { name: 'edgeplane_store_compacted_revision', help: 'Revision up to which the log is compacted.', type: 'gauge', value: (s) => s.compacted },
  { name: 'edgeplane_store_objects', help: 'Objects currently stored.', type: 'gauge', value: (s) => s.objects },
  { name: 'edgeplane_watch_window_events', help: 'Events held in the in-memory watch window.', type: 'gauge', value: (s) => s.windowEvents },
  { name: 'edgeplane_watchers', help: 'Open watchers.', type: 'gauge', value: (s) => s.watchers },
  { name: 'edgeplane_watch_deliveries_total', help: 'Frames delivered to watchers.', type: 'counter', value: (s) => s.deliveries },
  { name: 'edgeplane_watch_slow_closed_total', help: 'Watchers closed because their buffer overflowed.', type: 'counter', value: (s) => s.slowClosed },
  { name: 'edgeplane_watch_expired_total', help: 'Watches answered 410 Expired.', type: 'counter', value: (s) => s.expired },
];

metrics.get('/metrics', async (c) => {
  const stats = await Promise.all(RESOURCE_TYPES.map(async (t) => ({
    resource: groupResource(t),
    stats: await storeFor(c.env, t).stats(groupResource(t)),
  })));
  const lines: string[] = [];
  for (const series of SERIES) {
    lines.push(`# HELP ${series.name} ${series.help}`, `# TYPE ${series.name} ${series.type}`);
    for (const { resource, stats: s } of stats) lines.push(`${series.name}{resource="${resource}"} ${series.value(s)}`);
  }
  return c.text(`${lines.join('\n')}\n`, 200, { 'content-type': 'text/plain; version=0.0.4' });
});
