// Scheduler: kube-scheduler's loop over the shared informers. Pods without spec.nodeName whose
// schedulerName is default-scheduler are queued; each cycle filters and scores every node
// (algorithm.ts) against the cache of bound and assumed pods (node-info.ts), assumes the pod on the best
// node, and binds it through POST pods/<name>/binding. A pod that fits nowhere gets a FailedScheduling event
// and PodScheduled=False, and waits among the unschedulable pods, retried with backoff (1 s doubling to
// 10 s) and whenever a node is added or changes or a bound pod goes away (kube's pre-QueueingHints rule).
// Cycles run synchronously up to the binding, so several workers never place against the same free room.

import type { KubeObject } from '../../client/types';
import { objectKey } from '../../client/cache';
import { isConflict, isNotFound, type Api, type ResourceRef } from '../api-client';
import type { Clock } from '../clock';
import type { EventRecorder } from '../events';
import { kubeTime } from '../events';
import type { SharedInformer } from '../informers';
import { logSyncError, runWorker, WorkQueue } from '../workqueue';
import { filterNode, fitErrorMessage, scoreNodes, selectHost, type Candidate } from './algorithm';
import { NodeUsageCache } from './node-info';

export const COMPONENT = 'default-scheduler';
const INITIAL_BACKOFF_MS = 1_000; // podInitialBackoffSeconds
const MAX_BACKOFF_MS = 10_000; // podMaxBackoffSeconds

export interface SchedulerDeps {
  api: Api;
  pods: SharedInformer;
  nodes: SharedInformer;
  clock: Clock;
  recorder: EventRecorder;
  random?: () => number;
}

interface PodSpec { nodeName?: string; schedulerName?: string }
interface Condition { type: string; status: string; reason?: string; message?: string }

const spec = (p: KubeObject) => (p.spec ?? {}) as PodSpec;
const phase = (p: KubeObject) => (p.status as { phase?: string } | undefined)?.phase;
const isTerminal = (p: KubeObject) => phase(p) === 'Succeeded' || phase(p) === 'Failed';

/** The binding subresource as a "collection" the Api can POST to: /api/v1/namespaces/<ns>/pods/<name>/binding. */
const bindingOf = (name: string): ResourceRef => ({ group: '', version: 'v1', resource: `pods/${encodeURIComponent(name)}/binding`, namespaced: true });

const sameRequest = (a: KubeObject, b: KubeObject) =>
  JSON.stringify([a.spec, a.metadata.labels, a.metadata.annotations]) === JSON.stringify([b.spec, b.metadata.labels, b.metadata.annotations]);

/** Pods this scheduler places: unbound, alive, and asking for it (spec.schedulerName, default default-scheduler). */
export function responsibleFor(pod: KubeObject, schedulerName = COMPONENT): boolean {
  return !spec(pod).nodeName && (spec(pod).schedulerName ?? COMPONENT) === schedulerName && !pod.metadata.deletionTimestamp && !isTerminal(pod);
}

export class Scheduler {
  readonly queue: WorkQueue;
  readonly cache = new NodeUsageCache();
  private readonly unschedulable = new Set<string>();
  private readonly attempts = new Map<string, number>();

  constructor(private readonly d: SchedulerDeps) {
    this.queue = new WorkQueue(d.clock);
    const onPod = (p: KubeObject, old?: KubeObject) => {
      const key = objectKey(p);
      this.cache.observe(key, p);
      if (!responsibleFor(p)) this.settled(key);
      // isPodUpdated: an unschedulable pod whose update changed only its status (e.g. our own PodScheduled
      // write) waits for its backoff or a cluster event rather than being retried at once.
      else if (!(old && this.unschedulable.has(key) && sameRequest(old, p))) this.queue.add(key);
      // A bound pod finishing frees its node's room.
      if (old && spec(old).nodeName && !isTerminal(old) && isTerminal(p)) this.flushUnschedulable();
    };
    d.pods.addHandlers({
      add: (p) => onPod(p),
      update: (p, old) => onPod(p, old),
      delete: (p) => {
        const key = objectKey(p);
        const wasPlaced = this.cache.nodeOf(key) !== undefined;
        this.cache.forget(key);
        this.settled(key);
        if (wasPlaced) this.flushUnschedulable();
      },
    });
    d.nodes.addHandlers({ add: () => this.flushUnschedulable(), update: () => this.flushUnschedulable() });
  }

  run(workers = 4): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError(COMPONENT) }));
  }

  /** Pods waiting because nothing fitted (for tests and status). */
  pendingUnschedulable(): number {
    return this.unschedulable.size;
  }

  private settled(key: string): void {
    this.unschedulable.delete(key);
    this.attempts.delete(key);
  }

  private flushUnschedulable(): void {
    for (const key of this.unschedulable) this.queue.add(key);
  }

  async sync(key: string): Promise<void> {
    const pod = this.d.pods.get(key);
    if (!pod || !responsibleFor(pod)) return this.settled(key);
    if (this.cache.nodeOf(key)) return; // assumed: its binding is on its way
    // One scheduling cycle, synchronous until the binding: filter, score, select, assume.
    const nodes = this.d.nodes.list();
    const candidates: Candidate[] = [];
    const results = nodes.map((node) => {
      const usage = this.cache.get(node.metadata.name!);
      const r = filterNode(pod, node, usage);
      if (!r.reasons.length) candidates.push({ node, usage });
      return r;
    });
    if (!candidates.length) return this.unschedulableNow(key, pod, fitErrorMessage(pod, results));
    const chosen = candidates[selectHost(scoreNodes(pod, candidates), this.d.random)].node.metadata.name!;
    this.cache.assume(key, pod, chosen);
    const { namespace, name, uid } = pod.metadata;
    try {
      await this.d.api.create(bindingOf(name!), namespace!, {
        apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace, uid }, target: { apiVersion: 'v1', kind: 'Node', name: chosen },
      });
    } catch (e) {
      this.cache.forget(key);
      if (isNotFound(e) || isConflict(e)) return; // gone, or bound meanwhile: the informer brings the news
      throw e;
    }
    this.settled(key);
    this.d.recorder.event(pod, 'Normal', 'Scheduled', `Successfully assigned ${namespace}/${name} to ${chosen}`);
  }

  private async unschedulableNow(key: string, pod: KubeObject, message: string): Promise<void> {
    this.unschedulable.add(key);
    const n = (this.attempts.get(key) ?? 0) + 1;
    this.attempts.set(key, n);
    this.queue.addAfter(key, Math.min(MAX_BACKOFF_MS, INITIAL_BACKOFF_MS * 2 ** (n - 1)));
    this.d.recorder.event(pod, 'Warning', 'FailedScheduling', message);
    // handleSchedulingFailure → updatePod: PodScheduled=False, reason Unschedulable, written only on change.
    const conditions = ((pod.status as { conditions?: Condition[] } | undefined)?.conditions ?? []);
    const prior = conditions.find((c) => c.type === 'PodScheduled');
    if (prior?.status === 'False' && prior.reason === 'Unschedulable' && prior.message === message) return;
    const condition = { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message, lastProbeTime: null, lastTransitionTime: kubeTime(this.d.clock.now()) };
    if (prior?.status === 'False') condition.lastTransitionTime = (prior as { lastTransitionTime?: string }).lastTransitionTime ?? condition.lastTransitionTime;
    try {
      await this.d.api.patch({ group: '', version: 'v1', resource: 'pods', namespaced: true }, pod.metadata.namespace!, pod.metadata.name!, 'strategic',
        { metadata: { uid: pod.metadata.uid }, status: { conditions: [condition] } }, 'status');
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }
}
