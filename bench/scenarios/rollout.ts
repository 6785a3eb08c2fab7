// Scenario: the control loops at scale (issue 13, issue 20). A Deployment of N replicas created on a gateway
// running its controller manager, scheduler and simulated kubelets: the time until status.availableReplicas
// = N, and what every store wrote meanwhile: changes (new revisions, edgeplane_store_revision from /metrics:
// one per object created, updated or deleted, kept in SQLite, so a store's restart does not reset it) in all,
// per pod and per type.

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
}

/** Per resource type, the store's newest revision. */
export async function revisions(ep: Edgeplane): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const [k, v] of await ep.metrics()) {
    if (k.startsWith('edgeplane_store_revision{')) out.set(/resource="([^"]*)"/.exec(k)?.[1] ?? '?', v);
  }
  return out;
}

export async function runRollout(ep: Edgeplane, replicas: number, nodes: number, maxMs: number): Promise<RolloutResult> {
  const ns = `rollout-${replicas}`;
  await ep.createNamespace(ns);
  const name = `web-${replicas}`;
  const labels = { app: name };
  const before = await revisions(ep);
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
  const after = await revisions(ep);
  const byType: Record<string, number> = {};
  let writes = 0;
  for (const [type, v] of after) {
    const n = v - (before.get(type) ?? 0);
    if (n > 0) byType[type] = n;
    writes += n;
  }
  const seconds = (Number.isNaN(availableMs) ? performance.now() - t0 : availableMs) / 1000;
  return {
    variant: ep.label, replicas, nodes, availableMs: Math.round(availableMs), writes,
    writesPerSecond: Math.round(writes / seconds), writesPerPod: round(writes / replicas, 2), writesByType: byType,
  };
}

export function describeRollout(r: RolloutResult): string {
  const types = Object.entries(r.writesByType).sort((a, b) => b[1] - a[1]).map(([t, n]) => `${t} ${n}`).join(', ');
  return `rollout of ${r.replicas} replicas on ${r.nodes} nodes (${r.variant}): Available after ${r.availableMs} ms, ${r.writes} store writes ` +
    `(changes: ${r.writesPerPod} per pod, ${r.writesPerSecond}/s: ${types})`;
}
