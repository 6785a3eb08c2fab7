// Scenario: the control loops at scale (issue 13, issue 20). A Deployment of N replicas created on a gateway
// running its controller manager, scheduler and simulated kubelets: the time until status.availableReplicas
// = N, and what every store wrote meanwhile, from /metrics: changes (new revisions, edgeplane_store_revision:
// one per object created, updated or deleted) in all, per pod and per type, and write requests
// (edgeplane_store_writes_total; one request may change several objects).

import type { Edgeplane } from '../targets/edgeplane';
import { round, sleep } from '../lib/stats';

export interface RolloutResult {
  variant: string;
  replicas: number;
  nodes: number;
  availableMs: number; // create → availableReplicas = N, or NaN if not within the time bound
  writes: number; // changes (revisions) every store made during that time
  writesPerSecond: number;
  writesPerPod: number;
  writesByType: Record<string, number>; // "core/pods" → changes
  requests: number; // write requests the stores served (edgeplane_store_writes_total)
}

/** Per resource type, the store's newest revision and the write requests it served. */
async function storeCounters(ep: Edgeplane): Promise<{ revisions: Map<string, number>; requests: number }> {
  const revisions = new Map<string, number>();
  let requests = 0;
  for (const [k, v] of await ep.metrics()) {
    if (k.startsWith('edgeplane_store_writes_total{')) requests += v;
    if (!k.startsWith('edgeplane_store_revision{')) continue;
    revisions.set(/resource="([^"]*)"/.exec(k)?.[1] ?? '?', v);
  }
  return { revisions, requests };
}

export async function runRollout(ep: Edgeplane, replicas: number, nodes: number, maxMs: number): Promise<RolloutResult> {
  const ns = `rollout-${replicas}`;
  await ep.createNamespace(ns);
  const name = `web-${replicas}`;
  const labels = { app: name };
  const before = await storeCounters(ep);
  const t0 = performance.now();
  await ep.port.json('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
    metadata: { name },
    spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
  }, [201]);
  let availableMs = NaN;
  while (performance.now() - t0 < maxMs) {
    const d = await ep.port.json('GET', `/apis/apps/v1/namespaces/${ns}/deployments/${name}`);
    if ((d.status?.availableReplicas ?? 0) >= replicas) {
      availableMs = performance.now() - t0;
      break;
    }
    await sleep(200);
  }
  const after = await storeCounters(ep);
  const byType: Record<string, number> = {};
  let writes = 0;
  for (const [type, v] of after.revisions) {
    const n = v - (before.revisions.get(type) ?? 0);
    if (n > 0) byType[type] = n;
    writes += n;
  }
  const seconds = (Number.isNaN(availableMs) ? performance.now() - t0 : availableMs) / 1000;
  return {
    variant: ep.label, replicas, nodes, availableMs: Math.round(availableMs), writes,
    writesPerSecond: Math.round(writes / seconds), writesPerPod: round(writes / replicas, 2), writesByType: byType,
    requests: after.requests - before.requests,
  };
}

export function describeRollout(r: RolloutResult): string {
  const types = Object.entries(r.writesByType).sort((a, b) => b[1] - a[1]).map(([t, n]) => `${t} ${n}`).join(', ');
  return `rollout of ${r.replicas} replicas on ${r.nodes} nodes (${r.variant}): Available after ${r.availableMs} ms, ${r.writes} store writes ` +
    `(changes: ${r.writesPerPod} per pod, ${r.writesPerSecond}/s: ${types}; ${r.requests} write requests)`;
}
