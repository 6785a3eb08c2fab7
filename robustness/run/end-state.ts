// Robustness: the control loops' end states, where they can be checked from outside once the cluster is quiet
// (CONTROLLERS on): a Deployment scaled during the faults ends with exactly spec.replicas live pods; a Deployment
// deleted during them leaves nothing behind; no ReplicaSet or pod is left whose owner is gone (the garbage
// collector's job). Checked by polling, with a bound, after traffic stops.

import type { Violation } from '../check';
import { send, type Recorder } from './recorder';
import type { Rng } from './rng';

const APPS = '/apis/apps/v1';

const deployment = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
  spec: {
    replicas, selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } },
  },
});

interface Item {
  metadata: { name: string; uid: string; deletionTimestamp?: string; ownerReferences?: { uid: string; kind: string; name: string }[] };
  spec?: { replicas?: number };
}

export class Workloads {
  private replicas = 0;
  scaled = 0;

  constructor(private readonly rec: Recorder, private readonly rng: Rng, readonly namespace: string) {}

  private async must(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const r = await send(this.rec, method, path, body, headers).catch(() => undefined);
      if (r && (r.status < 300 || r.status === 404 || (r.status === 409 && method === 'POST'))) return;
      if (attempt >= 20) throw new Error(`workloads: ${method} ${path} answered ${r?.status ?? 'nothing'}`);
      await new Promise((res) => setTimeout(res, 250));
    }
  }

  async setup(): Promise<void> {
    this.replicas = this.rng.int(1, 3);
    await this.must('POST', '/api/v1/namespaces', { metadata: { name: this.namespace } });
    await this.must('POST', `${APPS}/namespaces/${this.namespace}/deployments`, deployment('app', this.replicas));
    await this.must('POST', `${APPS}/namespaces/${this.namespace}/deployments`, deployment('doomed', 2));
  }

  /** Rescales app; the first call after `deleteAfter` scale steps also deletes doomed. */
  async step(): Promise<void> {
    this.replicas = this.rng.int(0, 4);
    await this.must('PATCH', `${APPS}/namespaces/${this.namespace}/deployments/app`, { spec: { replicas: this.replicas } }, { 'content-type': 'application/merge-patch+json' });
    if (++this.scaled === 2) await this.must('DELETE', `${APPS}/namespaces/${this.namespace}/deployments/doomed`, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' });
  }

  /** What is wrong now ([] once converged). */
  private async problems(): Promise<string[]> {
    const get = async (path: string): Promise<Item[]> => {
      const r = await send(this.rec, 'GET', path);
      if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
      return r.json.items;
    };
    const ns = this.namespace;
    const [deploys, sets, pods] = await Promise.all([get(`${APPS}/namespaces/${ns}/deployments`), get(`${APPS}/namespaces/${ns}/replicasets`), get(`/api/v1/namespaces/${ns}/pods`)]);
    const out: string[] = [];
    const uids = new Set([...deploys, ...sets, ...pods].map((o) => o.metadata.uid));
    for (const o of [...sets, ...pods]) {
      for (const ref of o.metadata.ownerReferences ?? []) {
        if (!uids.has(ref.uid)) out.push(`${o.metadata.name} is owned by ${ref.kind} ${ref.name} (${ref.uid}), which is gone (an orphan the garbage collector left)`);
      }
    }
    const app = deploys.find((d) => d.metadata.name === 'app');
    if (!app) out.push('deployment app is missing');
    if (deploys.some((d) => d.metadata.name === 'doomed') && this.scaled >= 2) out.push('deployment doomed still exists');
    if (app) {
      const appSets = new Set(sets.filter((s) => s.metadata.ownerReferences?.some((r) => r.uid === app.metadata.uid)).map((s) => s.metadata.uid));
      const live = pods.filter((p) => !p.metadata.deletionTimestamp && p.metadata.ownerReferences?.some((r) => appSets.has(r.uid)));
      if (live.length !== this.replicas) out.push(`deployment app wants ${this.replicas} replicas and has ${live.length} live pods`);
    }
    return out;
  }

  async verify(timeoutMs: number): Promise<Violation[]> {
    const deadline = Date.now() + timeoutMs;
    let last: string[] = [];
    while (Date.now() < deadline) {
      last = await this.problems().catch((e) => [String(e)]);
      if (last.length === 0) return [];
      await new Promise((r) => setTimeout(r, 500));
    }
    return last.map((message) => ({ check: 'EndState', subject: `namespace ${this.namespace}`, message: `after ${timeoutMs / 1000} s quiet: ${message}` }));
  }
}
