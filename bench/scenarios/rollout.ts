// Scenario: the control loops at scale (issue 13). A Deployment of N replicas created on a gateway running its
// controller manager, scheduler and simulated kubelets: the time until status.availableReplicas = N, and the writes
// the loops made meanwhile (edgeplane_store_writes_total over every store, from /metrics).

import type { Edgeplane } from '../targets/edgeplane';

export interface RolloutResult {
  replicas: number;
  nodes: number;
  availableMs: number; // create → availableReplicas = N, or NaN if not within the time bound
  writes: number; // store writes during that time, every type
  writesPerSecond: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function storeWrites(ep: Edgeplane): Promise<number> {
  let n = 0;
  for (const [k, v] of await ep.metrics()) if (k.startsWith('edgeplane_store_writes_total{')) n += v;
  return n;
}

export async function runRollout(ep: Edgeplane, replicas: number, nodes: number, maxMs: number): Promise<RolloutResult> {
  const ns = `rollout-${replicas}`;
  await ep.createNamespace(ns);
  const name = `web-${replicas}`;
  const labels = { app: name };
  const before = await storeWrites(ep);
  const t0 = performance.now();
  await ep.direct.json('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
    metadata: { name },
    spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
  }, [201]);
  let availableMs = NaN;
  while (performance.now() - t0 < maxMs) {
    const d = await ep.direct.json('GET', `/apis/apps/v1/namespaces/${ns}/deployments/${name}`);
    if ((d.status?.availableReplicas ?? 0) >= replicas) {
      availableMs = performance.now() - t0;
      break;
    }
    await sleep(200);
  }
  const writes = (await storeWrites(ep)) - before;
  const seconds = (Number.isNaN(availableMs) ? performance.now() - t0 : availableMs) / 1000;
  return { replicas, nodes, availableMs: Math.round(availableMs), writes, writesPerSecond: Math.round(writes / seconds) };
}
