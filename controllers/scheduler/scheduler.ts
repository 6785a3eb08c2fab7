// Scheduler: kube-scheduler's loop over the shared informers. Pods without spec.nodeName whose schedulerName is
// default-scheduler wait in the scheduling queue (scheduling-queue.ts); each cycle pops one, filters and scores
// every node (algorithm.ts) against the cache of bound and assumed pods (node-info.ts), assumes the pod on the
// best node and binds it through POST pods/<name>/binding in the background (kube's binding cycle), so the next
// cycle does not wait for the API. A pod that fits nowhere gets a FailedScheduling event (through the recorder's
// correlator: counted, aggregated, rate-limited per pod), PodScheduled=False, and is parked with the plugins
// that rejected it until a cluster event they care about (queueing-hints.ts) or 5 minutes.
//
// Bounded work: a cycle is O(nodes) and synchronous (two cycles never place against the same free room), the
// loop yields to the event loop after about a millisecond of cycles (CYCLE_BUDGET), and at most MAX_IN_FLIGHT_WRITES bindings and status writes
// are outstanding — the loop waits for one to finish before it pops the next pod. A node event costs one hint
// per parked pod; the pods it moves are scheduled one cycle at a time like any others.

import type { KubeObject } from '../../client/types';
import { objectKey } from '../../client/cache';
import { isConflict, isNotFound, type Api, type ResourceRef } from '../api-client';
import type { Clock } from '../clock';
import type { EventRecorder } from '../events';
import { kubeTime } from '../events';
import type { SharedInformer } from '../informers';
import { macrotask } from '../workqueue';
import { filterNode, fitErrorHead, fitErrorMessage, scoreNodes, selectHost, type Candidate, type FilterResult } from './algorithm';
import { pickPreemption, type PreemptionCandidate } from './preemption';
import { podPriority } from './node-info';
import { NodeUsageCache, type NodeUsage } from './node-info';
import { podRequests, type Resources } from './resources';
import { NO_NODES, nodeUpdateMatters, VOLUME_BINDING, type RejectorPlugin } from './queueing-hints';
import { unboundClaims, volumeFilter, volumePreFilter, type VolumeLookup } from './volume-binding';
import { ANN_SELECTED_NODE } from '../volume-plan';
import { SchedulingQueue, type QueuedPodInfo } from './scheduling-queue';

export const COMPONENT = 'default-scheduler';
export const MAX_IN_FLIGHT_WRITES = 2; // bindings and PodScheduled writes outstanding at once
// Work between two yields to the event loop, in node evaluations (a cycle costs its node count plus a fixed
// share for the event and the bookkeeping): about a millisecond, so requests and other loops wait no longer.
export const CYCLE_BUDGET = 256;
const CYCLE_OVERHEAD = 8;

export interface SchedulerDeps {
  api: Api;
  pods: SharedInformer;
  nodes: SharedInformer;
  clock: Clock;
  recorder: EventRecorder;
  // VolumeBinding: the claims, volumes and classes pods' volumes name (absent: pods' claims are not looked at)
  claims?: SharedInformer;
  volumes?: SharedInformer;
  storageClasses?: SharedInformer;
  random?: () => number;
  yieldToEventLoop?: () => Promise<void>; // after CYCLE_BUDGET of work; a macrotask by default
}

interface PodSpec { nodeName?: string; schedulerName?: string }
interface Condition { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }

const spec = (p: KubeObject) => (p.spec ?? {}) as PodSpec;
const phase = (p: KubeObject) => (p.status as { phase?: string } | undefined)?.phase;
const isTerminal = (p: KubeObject) => phase(p) === 'Succeeded' || phase(p) === 'Failed';

/** The binding subresource as a "collection" the Api can POST to: /api/v1/namespaces/<ns>/pods/<name>/binding. */
const bindingOf = (name: string): ResourceRef => ({ group: '', version: 'v1', resource: `pods/${encodeURIComponent(name)}/binding`, namespaced: true });
const PODS: ResourceRef = { group: '', version: 'v1', resource: 'pods', namespaced: true };
const CLAIMS: ResourceRef = { group: '', version: 'v1', resource: 'persistentvolumeclaims', namespaced: true };

/** Pods this scheduler places: unbound, alive, and asking for it (spec.schedulerName, default default-scheduler). */
export function responsibleFor(pod: KubeObject, schedulerName = COMPONENT): boolean {
  return !spec(pod).nodeName && (spec(pod).schedulerName ?? COMPONENT) === schedulerName && !pod.metadata.deletionTimestamp && !isTerminal(pod);
}

export class Scheduler {
  readonly queue: SchedulingQueue;
  readonly cache = new NodeUsageCache();
  private inFlight = 0;
  // Preemptors this scheduler nominated, until bound or gone: their node's room is held for them against pods of
  // no higher priority (kube's RunFilterPluginsWithNominatedPods), so a victim's replacement cannot take it.
  private readonly nominated = new Map<string, { node: string; priority: number; requested: Resources }>();
  private readonly slotWaiters: (() => void)[] = [];
  private spent = 0; // work since the last yield, shared by the loops
  private volumes: VolumeLookup | undefined;

  constructor(private readonly d: SchedulerDeps) {
    this.queue = new SchedulingQueue(d.clock);
    d.pods.addHandlers({
      add: (p) => {
        const key = objectKey(p);
        this.cache.observe(key, p);
        if (responsibleFor(p)) this.queue.add(key, p);
      },
      update: (p, old) => {
        const key = objectKey(p);
        this.cache.observe(key, p);
        if (responsibleFor(p)) this.queue.update(key, old, p);
        else this.queue.delete(key);
        // A bound pod finishing frees its node's room, as its deletion would.
        if (spec(old).nodeName && !isTerminal(old) && isTerminal(p)) this.queue.moveAll({ type: 'AssignedPodDelete', pod: old });
      },
      delete: (p) => {
        const key = objectKey(p);
        const wasPlaced = this.cache.nodeOf(key) !== undefined; // bound, or assumed by us
        this.cache.forget(key);
        this.queue.delete(key);
        if (wasPlaced) this.queue.moveAll({ type: 'AssignedPodDelete', pod: p });
      },
    });
    const storageChanged = () => { this.queue.moveAll({ type: 'StorageChange' }); };
    for (const informer of [d.claims, d.volumes, d.storageClasses]) informer?.addHandlers({ add: storageChanged, update: storageChanged });
    if (d.claims && d.volumes && d.storageClasses) {
      const [claims, volumes, classes] = [d.claims, d.volumes, d.storageClasses];
      this.volumes = {
        claim: (ns, name) => claims.get(`${ns}/${name}`), volume: (name) => volumes.get(name), storageClass: (name) => classes.get(name),
      };
    }
    d.nodes.addHandlers({
      add: (node) => this.queue.moveAll({ type: 'NodeAdd', node }),
      update: (node, old) => { if (nodeUpdateMatters(old, node)) this.queue.moveAll({ type: 'NodeUpdate', old, node }); },
    });
  }

  /**
   * The scheduling loop: one, whatever `workers` says (kube-scheduler has one; a cycle never waits for the API).
   * One loop also makes its yields real: in workerd a timer (the macrotask a yield waits for) runs only once no
   * I/O completion is ready, so several loops that each resume on their writes' completions keep one another
   * going and starve every timer in the isolate — measured: the simulated kubelets' Lease heartbeat firing 3.9 s
   * late during a 100-pod burst, and nodes marked NotReady. A single loop pauses at each yield.
   */
  run(_workers = 1): Promise<void>[] {
    return [this.loop()];
  }

  /** Pods parked as unschedulable (tests and status). */
  pendingUnschedulable(): number {
    return this.queue.sizes().unschedulable;
  }

  /** One cycle for the next pod in activeQ, awaiting the write it starts; false when activeQ is empty (tests). */
  async scheduleOne(): Promise<boolean> {
    const info = this.queue.tryPop();
    if (!info) return false;
    await this.cycle(info);
    return true;
  }

  private async loop(): Promise<void> {
    for (;;) {
      while (this.inFlight >= MAX_IN_FLIGHT_WRITES) await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
      const info = await this.queue.pop();
      if (!info) return;
      this.cycle(info)?.catch((e) => console.error(`${COMPONENT}: ${(e as Error).message}`));
      this.spent += CYCLE_OVERHEAD; // cycle() adds its node count
      if (this.spent >= CYCLE_BUDGET) {
        this.spent = 0;
        await (this.d.yieldToEventLoop ?? macrotask)();
      }
    }
  }

  /** schedulingCycle, synchronous up to assume; answers the write it started (binding or status), if any. */
  private cycle(info: QueuedPodInfo): Promise<void> | undefined {
    const { key } = info;
    try {
      const pod = this.d.pods.get(key);
      if (!pod || !responsibleFor(pod) || this.cache.nodeOf(key)) {
        this.nominated.delete(key);
        return void this.queue.done(key);
      }
      const nodes = this.d.nodes.list();
      this.spent += nodes.length;
      if (!nodes.length) return this.unschedulable(key, pod, new Set([NO_NODES]), fitErrorMessage(pod, []));
      const vol = this.volumes ? volumePreFilter(pod, this.volumes) : { claims: [] };
      if (vol.error !== undefined) {
        // A PreFilter rejection: the same for every node (framework.Diagnosis.PreFilterMsg).
        const n = nodes.length;
        return this.unschedulable(key, pod, new Set([VOLUME_BINDING]),
          `0/${n} nodes are available: ${vol.error}. preemption: 0/${n} nodes are available: ${n} Preemption is not helpful for scheduling.`);
      }
      const candidates: Candidate[] = [];
      const results: FilterResult[] = [];
      for (const node of nodes) {
        const usage = this.withNominated(key, pod, node.metadata.name!, this.cache.get(node.metadata.name!));
        let r = filterNode(pod, node, usage);
        const volumeReason = r.reasons.length ? undefined : volumeFilter(vol.claims, node);
        if (volumeReason) r = { reasons: [volumeReason], unresolvable: true, plugin: VOLUME_BINDING };
        if (!r.reasons.length) candidates.push({ node, usage });
        results.push(r);
      }
      if (!candidates.length) {
        const plugins = new Set<RejectorPlugin>(results.flatMap((r) => (r.plugin ? [r.plugin] : [])));
        // PostFilter (DefaultPreemption). Only a pod of positive priority is tried: every pod without a
        // PriorityClass has 0, and victims must be strictly lower, so this keeps the common case O(nodes).
        if (podPriority(pod) > 0 && this.eligibleToPreempt(pod)) {
          const preemption = pickPreemption(pod, nodes.map((node, i) => ({
            node, usage: this.cache.get(node.metadata.name!), result: results[i]!,
            onNode: this.cache.podsOn(node.metadata.name!).filter((p) => !this.d.pods.get(p.key)?.metadata.deletionTimestamp),
          })));
          if (preemption) return this.preempt(key, pod, plugins, preemption, fitErrorHead(results));
        }
        return this.unschedulable(key, pod, plugins, fitErrorMessage(pod, results));
      }
      const chosen = candidates[selectHost(scoreNodes(pod, candidates), this.d.random)].node.metadata.name!;
      const waiting = unboundClaims(vol.claims);
      if (waiting.length) {
        // PreBind: the claims learn the node (the provisioner makes their volumes there); the pod waits, parked
        // until a claim or volume changes, and binds on the cycle that finds every claim bound.
        this.queue.addUnschedulable(key, new Set([VOLUME_BINDING]));
        const select = waiting.filter((c) => !c.selectedNode);
        if (!select.length) return undefined;
        return this.write(async () => {
          for (const { claim } of select) {
            try {
              await this.d.api.update(CLAIMS, { ...claim, metadata: { ...claim.metadata, annotations: { ...(claim.metadata.annotations ?? {}), [ANN_SELECTED_NODE]: chosen } } });
            } catch (e) {
              if (!isNotFound(e) && !isConflict(e)) console.error(`${COMPONENT}: selecting a node for ${key}'s claim: ${(e as Error).message}`);
            }
          }
        });
      }
      this.cache.assume(key, pod, chosen);
      return this.write(() => this.bind(key, pod, chosen));
    } catch (e) {
      // An unexpected error is not an unschedulable verdict: back off and retry (no rejecting plugins).
      console.error(`${COMPONENT}: scheduling ${key}: ${(e as Error).message}`);
      this.queue.addUnschedulable(key, new Set());
      return undefined;
    }
  }

  /** bindingCycle: POST the Binding; the informer then shows spec.nodeName and the queue lets the pod go. */
  private async bind(key: string, pod: KubeObject, node: string): Promise<void> {
    const { namespace, name, uid } = pod.metadata;
    try {
      await this.d.api.create(bindingOf(name!), namespace!, {
        apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace, uid }, target: { apiVersion: 'v1', kind: 'Node', name: node },
      });
    } catch (e) {
      this.cache.forget(key);
      if (isNotFound(e) || isConflict(e)) return this.queue.done(key); // gone, or bound meanwhile: the informer brings the news
      console.error(`${COMPONENT}: binding ${key} to ${node}: ${(e as Error).message}`);
      return this.queue.addUnschedulable(key, new Set()); // an API error: back off
    }
    this.queue.done(key);
    this.nominated.delete(key);
    this.d.recorder.event(pod, 'Normal', 'Scheduled', `Successfully assigned ${namespace}/${name} to ${node}`);
  }

  /** `usage` of `node` with the requests of the pods nominated to it that `pod` must not take the room of. */
  private withNominated(key: string, pod: KubeObject, node: string, usage: NodeUsage): NodeUsage {
    if (!this.nominated.size) return usage;
    const prio = podPriority(pod);
    let out = usage;
    for (const [k, n] of this.nominated) {
      if (k === key || n.node !== node || n.priority < prio) continue;
      if (!this.d.pods.get(k)) {
        this.nominated.delete(k); // gone
        continue;
      }
      if (out === usage) out = { ...usage, requested: { ...usage.requested }, pods: usage.pods };
      out.requested.cpu += n.requested.cpu;
      out.requested.memory += n.requested.memory;
      out.requested.ephemeral += n.requested.ephemeral;
      out.pods += 1;
    }
    return out;
  }

  /**
   * PodEligibleToPreemptOthers: a pod that already preempted waits while lower-priority pods on its nominated node
   * are still terminating, rather than preempting again.
   */
  private eligibleToPreempt(pod: KubeObject): boolean {
    const nominated = (pod.status as { nominatedNodeName?: string } | undefined)?.nominatedNodeName;
    if (!nominated) return true;
    const prio = podPriority(pod);
    return !this.cache.podsOn(nominated).some((p) => p.priority < prio && this.d.pods.get(p.key)?.metadata.deletionTimestamp);
  }

  /**
   * The preemption: the victims get the DisruptionTarget condition, a Preempted event and a graceful delete; the
   * preemptor is nominated to the node and parked until their deletion frees the room (AssignedPodDelete).
   */
  private preempt(key: string, pod: KubeObject, plugins: Set<RejectorPlugin>, c: PreemptionCandidate, message: string): Promise<void> | undefined {
    this.queue.addUnschedulable(key, plugins);
    this.d.recorder.event(pod, 'Warning', 'FailedScheduling', message);
    const now = kubeTime(this.d.clock.now());
    return this.write(async () => {
      for (const v of c.victims) {
        const victim = this.d.pods.get(v.key);
        if (!victim) continue;
        const { namespace, name, uid } = victim.metadata;
        try {
          await this.d.api.patch(PODS, namespace!, name!, 'strategic', { metadata: { uid }, status: { conditions: [{
            type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: now, reason: 'PreemptionByScheduler',
            message: `${COMPONENT}: preempting to accommodate a higher priority pod`,
          }] } }, 'status');
          this.d.recorder.event(victim, 'Normal', 'Preempted', `Preempted by pod ${pod.metadata.uid} on node ${c.node}`);
          await this.d.api.delete(PODS, namespace!, name!, { preconditions: { uid: uid as string } });
        } catch (e) {
          if (!isNotFound(e) && !isConflict(e)) console.error(`${COMPONENT}: preempting ${v.key}: ${(e as Error).message}`);
        }
      }
      try {
        await this.d.api.patch(PODS, pod.metadata.namespace!, pod.metadata.name!, 'strategic', { metadata: { uid: pod.metadata.uid }, status: { nominatedNodeName: c.node } }, 'status');
        this.nominated.set(key, { node: c.node, priority: podPriority(pod), requested: podRequests(pod) });
      } catch (e) {
        if (!isNotFound(e) && !isConflict(e)) console.error(`${COMPONENT}: nominating ${key}: ${(e as Error).message}`);
      }
    });
  }

  /** handleSchedulingFailure: park the pod, record the event, write PodScheduled=False when it changed. */
  private unschedulable(key: string, pod: KubeObject, plugins: Set<RejectorPlugin>, message: string): Promise<void> | undefined {
    this.queue.addUnschedulable(key, plugins);
    this.d.recorder.event(pod, 'Warning', 'FailedScheduling', message);
    const prior = ((pod.status as { conditions?: Condition[] } | undefined)?.conditions ?? []).find((c) => c.type === 'PodScheduled');
    if (prior?.status === 'False' && prior.reason === 'Unschedulable' && prior.message === message) return undefined;
    const now = kubeTime(this.d.clock.now());
    const condition = {
      type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message, lastProbeTime: null,
      lastTransitionTime: prior?.status === 'False' ? (prior.lastTransitionTime ?? now) : now,
    };
    return this.write(async () => {
      try {
        await this.d.api.patch(PODS, pod.metadata.namespace!, pod.metadata.name!, 'strategic',
          { metadata: { uid: pod.metadata.uid }, status: { conditions: [condition] } }, 'status');
      } catch (e) {
        if (!isNotFound(e) && !isConflict(e)) console.error(`${COMPONENT}: status of ${key}: ${(e as Error).message}`);
      }
    });
  }

  /** Runs an API write counted against MAX_IN_FLIGHT_WRITES. */
  private write(run: () => Promise<void>): Promise<void> {
    this.inFlight++;
    return run().finally(() => {
      this.inFlight--;
      this.slotWaiters.shift()?.();
    });
  }
}
