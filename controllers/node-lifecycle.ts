// Controllers: node lifecycle and taint eviction (kube's node-lifecycle-controller,
// pkg/controller/nodelifecycle, and taint-eviction-controller, pkg/controller/tainteviction).
//
// Node health: a node is probed whenever its Lease in kube-node-lease is renewed or its Ready condition's
// heartbeat moves, judged by this controller's clock. Once nothing has been seen for the grace period
// (NODE_MONITOR_GRACE_SECONDS, 40 s by default as before 1.32), its Ready, MemoryPressure, DiskPressure and
// PIDPressure conditions become Unknown (NodeStatusUnknown, "Kubelet stopped posting node status."), it gets
// event NodeNotReady, and its pods are marked not Ready. Taints follow the conditions: Ready=Unknown →
// node.kubernetes.io/unreachable NoSchedule and NoExecute, Ready=False → not-ready, spec.unschedulable →
// node.kubernetes.io/unschedulable NoSchedule; they go when the node is Ready again.
// Taint eviction: a pod on a node with NoExecute taints is deleted at once if it does not tolerate one of
// them, else when the shortest tolerationSeconds of the tolerations in use has passed since the taint was
// added (the 300 s DefaultTolerationSeconds gives every pod), with DisruptionTarget=True first.
// Not reproduced: zone disruption states and eviction rate limits (a small cluster stays in Normal state).

import type { KubeObject } from '../client/types';
import { objectKey } from '../client/cache';
import { isConflict, isNotFound, RESOURCES, type Api } from './api-client';
import type { Clock } from './clock';
import { kubeTime, type EventRecorder } from './events';
import type { SharedInformer } from './informers';
import { logSyncError, runWorker, WorkQueue } from './workqueue';
import { toleratesAny, type Taint, type Toleration, nodeTaints, podTolerations } from './scheduler/taints';

export const NODE_COMPONENT = 'node-controller';
export const EVICTION_COMPONENT = 'taint-eviction-controller';
export const UNREACHABLE = 'node.kubernetes.io/unreachable';
export const NOT_READY = 'node.kubernetes.io/not-ready';
export const UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
const MANAGED = new Set([UNREACHABLE, NOT_READY, UNSCHEDULABLE]);
const NODE_MONITOR_PERIOD_MS = 5_000;
const UNKNOWN_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'];

interface Condition { type: string; status: string; reason?: string; message?: string; lastHeartbeatTime?: string; lastTransitionTime?: string }

const conditionsOf = (n: KubeObject): Condition[] => ((n.status as { conditions?: Condition[] } | undefined)?.conditions ?? []);
const ready = (n: KubeObject) => conditionsOf(n).find((c) => c.type === 'Ready');
const nodeOf = (p: KubeObject) => (p.spec as { nodeName?: string } | undefined)?.nodeName ?? '';

/** The taints the node's state calls for, keeping timeAdded of those it already has. */
export function desiredTaints(node: KubeObject, now: string): Taint[] {
  const current = nodeTaints(node);
  const keep = current.filter((t) => !MANAGED.has(t.key));
  const want: Taint[] = [];
  const status = ready(node)?.status;
  const key = status === 'Unknown' ? UNREACHABLE : status === 'False' ? NOT_READY : undefined;
  if (key) want.push({ key, effect: 'NoSchedule' }, { key, effect: 'NoExecute', timeAdded: now });
  if ((node.spec as { unschedulable?: boolean } | undefined)?.unschedulable) want.push({ key: UNSCHEDULABLE, effect: 'NoSchedule' });
  const managed = want.map((t) => current.find((c) => c.key === t.key && c.effect === t.effect) ?? t);
  return [...keep, ...managed];
}

const sameTaints = (a: Taint[], b: Taint[]) => a.length === b.length && a.every((t, i) => t.key === b[i].key && t.effect === b[i].effect && (t.value ?? '') === (b[i].value ?? ''));

/**
 * When a pod on a node with these NoExecute taints must go: 0 for at once, undefined for never
 * (getMinTolerationTime over the tolerations in use, from the latest taint's timeAdded).
 */
export function evictionTime(taints: Taint[], tolerations: Toleration[], now: number): number | undefined {
  const noExecute = taints.filter((t) => t.effect === 'NoExecute');
  if (!noExecute.length) return undefined;
  let min = Infinity;
  let since = 0;
  for (const taint of noExecute) {
    const using = tolerations.filter((t) => toleratesAny([t], taint));
    if (!using.length) return 0;
    for (const t of using) if (t.tolerationSeconds !== undefined) min = Math.min(min, Math.max(0, t.tolerationSeconds));
    since = Math.max(since, Date.parse(taint.timeAdded ?? '') || now);
  }
  return min === Infinity ? undefined : since + min * 1000;
}

export interface NodeLifecycleDeps {
  api: Api; // node-controller
  evictionApi: Api; // taint eviction: node-controller's identity, as in kube
  nodes: SharedInformer;
  leases: SharedInformer;
  pods: SharedInformer;
  clock: Clock;
  recorder: EventRecorder;
  evictionRecorder: EventRecorder;
  graceMs: number;
}

export class NodeLifecycleController {
  readonly nodeQueue: WorkQueue;
  readonly podQueue: WorkQueue;
  private readonly probes = new Map<string, { at: number; seen: string }>();
  private readonly podsOnNode = new Map<string, Set<string>>();
  private monitor: unknown;
  private closed = false;

  constructor(private readonly d: NodeLifecycleDeps) {
    this.nodeQueue = new WorkQueue(d.clock);
    this.podQueue = new WorkQueue(d.clock);
    const probe = (node: string, seen: string | undefined) => {
      if (!seen) return;
      const prior = this.probes.get(node);
      if (prior?.seen === seen) return;
      this.probes.set(node, { at: d.clock.now(), seen });
      this.nodeQueue.add(node);
    };
    d.leases.addHandlers({
      add: (l) => l.metadata.namespace === 'kube-node-lease' && probe(l.metadata.name!, `lease ${(l.spec as { renewTime?: string } | undefined)?.renewTime}`),
      update: (l) => l.metadata.namespace === 'kube-node-lease' && probe(l.metadata.name!, `lease ${(l.spec as { renewTime?: string } | undefined)?.renewTime}`),
    });
    const onNode = (n: KubeObject) => {
      const r = ready(n);
      if (r?.status !== 'Unknown') probe(n.metadata.name!, `status ${r?.lastHeartbeatTime}`);
      this.nodeQueue.add(n.metadata.name!);
      for (const key of this.podsOnNode.get(n.metadata.name!) ?? []) this.podQueue.add(key);
    };
    d.nodes.addHandlers({ add: onNode, update: onNode, delete: (n) => this.probes.delete(n.metadata.name!) });
    const onPod = (p: KubeObject, old?: KubeObject) => {
      const key = objectKey(p);
      if (old && nodeOf(old) !== nodeOf(p)) this.podsOnNode.get(nodeOf(old))?.delete(key);
      if (!nodeOf(p)) return;
      let set = this.podsOnNode.get(nodeOf(p));
      if (!set) this.podsOnNode.set(nodeOf(p), (set = new Set()));
      set.add(key);
      this.podQueue.add(key);
    };
    d.pods.addHandlers({ add: (p) => onPod(p), update: onPod, delete: (p) => this.podsOnNode.get(nodeOf(p))?.delete(objectKey(p)) });
  }

  run(workers = 2): Promise<void>[] {
    const tick = () => {
      if (this.closed) return;
      for (const n of this.d.nodes.list()) this.nodeQueue.add(n.metadata.name!);
      this.monitor = this.d.clock.setTimeout(tick, Math.min(NODE_MONITOR_PERIOD_MS, Math.max(500, this.d.graceMs / 4)));
    };
    tick();
    return [
      ...Array.from({ length: workers }, () => runWorker(this.nodeQueue, (k) => this.syncNode(k), { onError: logSyncError(NODE_COMPONENT) })),
      ...Array.from({ length: workers }, () => runWorker(this.podQueue, (k) => this.syncPod(k), { onError: logSyncError(EVICTION_COMPONENT) })),
    ];
  }

  stop(): void {
    this.closed = true;
    this.d.clock.clearTimeout(this.monitor);
    this.nodeQueue.shutDown();
    this.podQueue.shutDown();
  }

  async syncNode(name: string): Promise<void> {
    let node = this.d.nodes.get(name);
    if (!node) return;
    const now = this.d.clock.now();
    const at = kubeTime(now);
    let probe = this.probes.get(name);
    if (!probe) this.probes.set(name, (probe = { at: now, seen: '' })); // first sight: the grace starts now
    const r = ready(node);
    if (now > probe.at + this.d.graceMs && r?.status !== 'Unknown') {
      // tryUpdateNodeHealth: the kubelet has gone quiet.
      const never = !r;
      const conditions = conditionsOf(node).filter((c) => !UNKNOWN_CONDITIONS.includes(c.type));
      for (const type of UNKNOWN_CONDITIONS) {
        const prior = conditionsOf(node).find((c) => c.type === type);
        conditions.push({
          type, status: 'Unknown', reason: never ? 'NodeStatusNeverUpdated' : 'NodeStatusUnknown',
          message: never ? 'Kubelet never posted node status.' : 'Kubelet stopped posting node status.',
          lastHeartbeatTime: prior?.lastHeartbeatTime ?? at, lastTransitionTime: at,
        });
      }
      node = await this.d.api.patch(RESOURCES.nodes, '', name, 'merge', { metadata: { resourceVersion: node.metadata.resourceVersion }, status: { conditions } }, 'status');
      this.d.recorder.event(node, 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
      await this.markPodsNotReady(name);
    }
    const taints = desiredTaints(node, at);
    if (!sameTaints(taints, nodeTaints(node))) {
      await this.d.api.patch(RESOURCES.nodes, '', name, 'merge', { metadata: { resourceVersion: node.metadata.resourceVersion }, spec: { taints: taints.length ? taints : null } });
    }
  }

  /** MarkPodsNotReady: every pod on the node gets Ready=False. */
  private async markPodsNotReady(node: string): Promise<void> {
    const at = kubeTime(this.d.clock.now());
    for (const key of this.podsOnNode.get(node) ?? []) {
      const pod = this.d.pods.get(key);
      const conditions = ((pod?.status as { conditions?: Condition[] } | undefined)?.conditions ?? []);
      if (!pod || conditions.find((c) => c.type === 'Ready')?.status !== 'True') continue;
      const next = conditions.map((c) => (c.type === 'Ready' ? { ...c, status: 'False', lastTransitionTime: at } : c));
      try {
        await this.d.api.patch(RESOURCES.pods, pod.metadata.namespace!, pod.metadata.name!, 'merge', { metadata: { uid: pod.metadata.uid }, status: { conditions: next } }, 'status');
        this.d.recorder.event(pod, 'Warning', 'NodeNotReady', 'Node is not ready');
      } catch (e) {
        if (!isNotFound(e) && !isConflict(e)) throw e;
      }
    }
  }

  async syncPod(key: string): Promise<void> {
    const pod = this.d.pods.get(key);
    if (!pod || pod.metadata.deletionTimestamp) return;
    const node = this.d.nodes.get(nodeOf(pod));
    if (!node) return;
    const now = this.d.clock.now();
    const due = evictionTime(nodeTaints(node), podTolerations(pod), now);
    if (due === undefined) return;
    if (now < due) return this.podQueue.addAfter(key, due - now);
    const { namespace, name, uid } = pod.metadata;
    try {
      const conditions = ((pod.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget');
      conditions.push({ type: 'DisruptionTarget', status: 'True', reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint', lastTransitionTime: kubeTime(now) });
      await this.d.evictionApi.patch(RESOURCES.pods, namespace!, name!, 'merge', { metadata: { uid }, status: { conditions } }, 'status');
      this.d.evictionRecorder.event(pod, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${namespace}/${name}`);
      await this.d.evictionApi.delete(RESOURCES.pods, namespace!, name!, { preconditions: { uid: uid as string } });
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }
}
