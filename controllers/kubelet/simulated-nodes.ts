// Simulated kubelets (kwok-style): SIMULATED_NODES nodes, node-1..node-N, each writing as
// system:node:<name>. A node registers itself, posts its status, and renews its Lease in kube-node-lease
// every 10 s; it re-posts Ready whenever the node controller has marked it otherwise. A pod bound to it goes,
// after a startup delay, Pending → Running and Ready with an IP from the node's pod CIDR in ONE status write
// and no container events: kwok's "fast" pod-ready stage (kustomize/stage/pod/fast), so a pod costs the API
// what it costs a kwok cluster (create, binding, one status write, the scheduler's event) — issue 20
// measured 12.4 store writes per pod of a 1,000-replica rollout with the full pattern below. A pod annotated
// edgeplane.dev/simulate-kubelet=full gets a kubelet's full pattern: Pending (ContainerCreating; event
// Pulling), then Running (Pulled, Created, Started), and Killing when it is stopped. Pods of Jobs then exit
// (Succeeded, or Failed with edgeplane.dev/simulate-exit-code ≠ 0) after edgeplane.dev/simulate-run-seconds
// (default 1). A pod being deleted is stopped and, after min(its grace period,
// edgeplane.dev/simulate-termination-seconds or 1 s), deleted with gracePeriodSeconds=0, as the kubelet's
// status manager does once containers are gone. A pod whose ConfigMap, Secret or claim volumes cannot be
// mounted stays Pending with FailedMount events (kubelet/volumes.ts), checked before the Running write. A Node
// annotated edgeplane.dev/simulate=stopped is a lost machine: no Lease renewals, its pods' statuses freeze.
// Static pods' mirror pods (static-pods.ts) get their statuses here like any pod's.

import type { KubeObject } from '../../client/types';
import { objectKey } from '../../client/cache';
import { isAlreadyExists, isConflict, isNotFound, RESOURCES, type Api } from '../api-client';
import type { Clock } from '../clock';
import { kubeTime, type EventRecorder } from '../events';
import type { SharedInformer } from '../informers';
import { logSyncError, runWorker, WorkQueue } from '../workqueue';
import {
  isStopped, leaseObject, NODE_LEASE_DURATION_SECONDS, NODE_LEASE_NAMESPACE, NODE_LEASE_RENEW_MS, nodeIP, nodeName, nodeObject, nodeStatus, readyStatus,
} from './node-status';
import { containersOf, creatingStatus, runningStatus, terminatedStatus } from './pod-status';
import { microTime } from '../leader-election';
import { mountBackoffMs, unmountableVolume, type MountLookup } from './volumes';
import { isMirrorPod } from '../../core/static-pods/manifests';

export const RUN_SECONDS_ANNOTATION = 'edgeplane.dev/simulate-run-seconds';
export const EXIT_CODE_ANNOTATION = 'edgeplane.dev/simulate-exit-code';
export const TERMINATION_SECONDS_ANNOTATION = 'edgeplane.dev/simulate-termination-seconds';
// "full": ContainerCreating first and the kubelet's container events (two status writes and four events more
// per pod than the default, kwok's fast stage).
export const KUBELET_ANNOTATION = 'edgeplane.dev/simulate-kubelet';
const DEFAULT_RUN_SECONDS = 1;
const DEFAULT_TERMINATION_SECONDS = 1;
const DEFAULT_STARTUP_MS = 500; // ContainerCreating → Running

export interface SimulatedNodesDeps {
  apiFor: (node: string) => Api; // each node writes with its own identity
  recorderFor: (node: string) => EventRecorder; // source kubelet, host <node>
  pods: SharedInformer;
  nodes: SharedInformer;
  clock: Clock;
  count: number;
  startupMs?: number;
  // Lease renewal period: kubelet's 10 s, shorter when the node controller's grace is short (tests), so
  // that healthy nodes never look lost between two renewals.
  leaseRenewMs?: number;
  mounts?: MountLookup; // absent: every volume mounts
}

interface Status { phase?: string; podIP?: string; startTime?: string; conditions?: { type: string; status: string }[]; containerStatuses?: { state?: { waiting?: { reason?: string }; running?: { startedAt?: string } } }[] }

const statusOf = (p: KubeObject): Status => (p.status as Status | undefined) ?? {};
const nodeOf = (p: KubeObject): string => (p.spec as { nodeName?: string } | undefined)?.nodeName ?? '';
const annotation = (p: KubeObject, k: string): string | undefined => (p.metadata.annotations as Record<string, string> | undefined)?.[k];
const seconds = (raw: string | undefined, fallback: number): number => {
  const n = Number(raw);
  return raw !== undefined && raw.trim() !== '' && Number.isFinite(n) && n >= 0 ? n : fallback;
};
const isJobPod = (p: KubeObject) => ((p.metadata.ownerReferences ?? []) as { kind?: string; controller?: boolean }[]).some((r) => r.kind === 'Job' && r.controller);
const isCreating = (p: KubeObject) => statusOf(p).containerStatuses?.[0]?.state?.waiting?.reason === 'ContainerCreating';
const isFull = (p: KubeObject) => annotation(p, KUBELET_ANNOTATION) === 'full';

export class SimulatedNodes {
  readonly queue: WorkQueue;
  private readonly index = new Map<string, number>(); // node name → i
  private readonly podsOnNode = new Map<string, Set<string>>();
  private readonly ipsInUse = new Set<string>();
  private readonly ipOf = new Map<string, string>(); // pod key → IP handed out
  private readonly creatingSince = new Map<string, number>(); // pod key → when its startup began (ContainerCreating reported, or first seen)
  private readonly reported = new Map<string, string>(); // pod key → `${uid}/${stage}` last written, until the informer shows it
  private readonly killing = new Map<string, number>(); // pod key → when its containers were told to stop
  private readonly stopped = new Set<string>();
  private readonly mountFailures = new Map<string, number>(); // pod key → failed mount attempts (backoff)
  private heartbeat: unknown;
  private closed = false;

  constructor(private readonly d: SimulatedNodesDeps) {
    this.queue = new WorkQueue(d.clock);
    for (let i = 1; i <= d.count; i++) this.index.set(nodeName(i), i);
    const track = (p: KubeObject, old?: KubeObject) => {
      const key = objectKey(p);
      if (old && nodeOf(old) !== nodeOf(p)) this.podsOnNode.get(nodeOf(old))?.delete(key);
      const ip = statusOf(p).podIP;
      if (ip) this.ipsInUse.add(ip);
      if (!this.index.has(nodeOf(p))) return;
      let set = this.podsOnNode.get(nodeOf(p));
      if (!set) this.podsOnNode.set(nodeOf(p), (set = new Set()));
      set.add(key);
      this.queue.add(key);
    };
    d.pods.addHandlers({
      add: (p) => track(p), update: (p, old) => track(p, old),
      delete: (p) => {
        const key = objectKey(p);
        this.podsOnNode.get(nodeOf(p))?.delete(key);
        for (const ip of [statusOf(p).podIP, this.ipOf.get(key)]) if (ip) this.ipsInUse.delete(ip);
        this.ipOf.delete(key);
        this.creatingSince.delete(key);
        this.reported.delete(key);
        this.killing.delete(key);
        this.mountFailures.delete(key);
      },
    });
    d.nodes.addHandlers({ update: (n) => this.nodeChanged(n), add: (n) => this.nodeChanged(n) });
  }

  /** Registers the nodes, then runs the heartbeat and the pod workers. */
  async start(workers = 2): Promise<Promise<void>[]> {
    for (let i = 1; i <= this.d.count; i++) {
      const name = nodeName(i);
      if (isStopped(this.d.nodes.get(name))) {
        this.stopped.add(name);
        continue;
      }
      await this.register(i);
      await this.renewLease(i);
    }
    this.scheduleHeartbeat();
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError('kubelet') }));
  }

  /** Ends the heartbeat and the workers. */
  stop(): void {
    this.closed = true;
    this.d.clock.clearTimeout(this.heartbeat);
    this.queue.shutDown();
  }

  private scheduleHeartbeat(): void {
    if (this.closed) return;
    this.heartbeat = this.d.clock.setTimeout(() => {
      this.beat().catch((e) => console.error(`kubelet heartbeat: ${(e as Error).message}`)).finally(() => this.scheduleHeartbeat());
    }, this.d.leaseRenewMs ?? NODE_LEASE_RENEW_MS);
  }

  /** One heartbeat of every running node: renew the Lease; re-register or re-post Ready when needed. */
  async beat(): Promise<void> {
    await Promise.all([...this.index].map(async ([name, i]) => {
      const node = this.d.nodes.get(name);
      if (isStopped(node)) return;
      try {
        if (!node || readyStatus(node) !== 'True') await this.register(i);
        await this.renewLease(i);
      } catch (e) {
        if (!isConflict(e)) console.error(`kubelet ${name}: ${(e as Error).message}`);
      }
    }));
  }

  private nodeChanged(n: KubeObject): void {
    const name = n.metadata.name!;
    const i = this.index.get(name);
    if (i === undefined) return;
    if (isStopped(n)) {
      this.stopped.add(name);
      return;
    }
    if (!this.stopped.delete(name)) return;
    // Restarted: heartbeat at once and pick up the pods that changed meanwhile.
    void this.register(i).then(() => this.renewLease(i)).catch((e) => console.error(`kubelet ${name}: ${(e as Error).message}`));
    for (const key of this.podsOnNode.get(name) ?? []) this.queue.add(key);
  }

  private async register(i: number): Promise<void> {
    const api = this.d.apiFor(nodeName(i));
    try {
      await api.create(RESOURCES.nodes, '', nodeObject(i));
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
    await api.patch(RESOURCES.nodes, '', nodeName(i), 'strategic', { status: nodeStatus(i, kubeTime(this.d.clock.now())) }, 'status');
  }

  private async renewLease(i: number): Promise<void> {
    const name = nodeName(i);
    const api = this.d.apiFor(name);
    const now = this.d.clock.now();
    try {
      await api.patch(RESOURCES.leases, NODE_LEASE_NAMESPACE, name, 'merge', { spec: { holderIdentity: name, leaseDurationSeconds: NODE_LEASE_DURATION_SECONDS, renewTime: microTime(now) } });
    } catch (e) {
      if (!isNotFound(e)) throw e;
      const node = this.d.nodes.get(name) ?? await api.get(RESOURCES.nodes, '', name);
      await api.create(RESOURCES.leases, NODE_LEASE_NAMESPACE, leaseObject(node, now));
    }
  }

  private allocateIP(key: string, i: number): string {
    const prior = this.ipOf.get(key);
    if (prior) return prior;
    for (let host = 2; host < 255; host++) {
      const ip = `10.244.${i}.${host}`;
      if (!this.ipsInUse.has(ip)) {
        this.ipsInUse.add(ip);
        this.ipOf.set(key, ip);
        return ip;
      }
    }
    throw new Error(`${nodeName(i)}: pod CIDR exhausted`);
  }

  private async writeStatus(key: string, pod: KubeObject, stage: string, status: Record<string, unknown>): Promise<boolean> {
    const mark = `${pod.metadata.uid}/${stage}`;
    if (this.reported.get(key) === mark) return false; // written; the informer has not shown it yet
    try {
      await this.d.apiFor(nodeOf(pod)).patch(RESOURCES.pods, pod.metadata.namespace!, pod.metadata.name!, 'merge', { metadata: { uid: pod.metadata.uid }, status }, 'status');
    } catch (e) {
      if (isNotFound(e) || isConflict(e)) return false;
      throw e;
    }
    this.reported.set(key, mark);
    return true;
  }

  async sync(key: string): Promise<void> {
    const pod = this.d.pods.get(key);
    if (!pod) return;
    const node = nodeOf(pod);
    const i = this.index.get(node);
    if (i === undefined || isStopped(this.d.nodes.get(node))) return; // not ours, or frozen
    // A mirror pod being deleted is the static pod loop's (static-pods.ts): it deletes and recreates it.
    if (pod.metadata.deletionTimestamp) return isMirrorPod(pod) ? undefined : this.terminate(key, pod);
    const status = statusOf(pod);
    const now = this.d.clock.now();
    const at = kubeTime(now);
    const recorder = this.d.recorderFor(node);
    const containers = containersOf(pod);
    const full = isFull(pod);
    if (status.phase === 'Pending' && full && !isCreating(pod)) {
      if (await this.writeStatus(key, pod, 'creating', creatingStatus(pod, nodeIP(i), at))) {
        this.creatingSince.set(key, now);
        for (const c of containers) recorder.event(pod, 'Normal', 'Pulling', `Pulling image "${c.image}"`);
        this.queue.addAfter(key, this.d.startupMs ?? DEFAULT_STARTUP_MS);
      }
      return;
    }
    if (status.phase === 'Pending') {
      const startup = this.d.startupMs ?? DEFAULT_STARTUP_MS;
      let since = this.creatingSince.get(key);
      if (since === undefined) {
        // kwok's fast stage: nothing is written until the pod runs; the startup delay starts now (a pod already
        // ContainerCreating when this kubelet started has waited long enough).
        since = full || isCreating(pod) ? now - startup : now;
        this.creatingSince.set(key, since);
      }
      if (now < since + startup) return this.queue.addAfter(key, since + startup - now);
      const unmountable = this.d.mounts && unmountableVolume(pod, this.d.mounts);
      if (unmountable) {
        const failures = this.mountFailures.get(key) ?? 0;
        this.mountFailures.set(key, failures + 1);
        // A pod waiting for its volumes shows ContainerCreating, as a kubelet's does: one write, for such pods only.
        if (!isCreating(pod)) await this.writeStatus(key, pod, 'creating', creatingStatus(pod, nodeIP(i), at));
        recorder.event(pod, 'Warning', 'FailedMount', unmountable);
        return this.queue.addAfter(key, mountBackoffMs(failures));
      }
      this.mountFailures.delete(key);
      const startTime = status.startTime ?? at;
      if (await this.writeStatus(key, pod, 'running', runningStatus(pod, nodeIP(i), this.allocateIP(key, i), startTime, at))) {
        this.creatingSince.delete(key);
        const took = ((now - since) / 1000).toFixed(3);
        if (full) {
          for (const c of containers) {
            recorder.event(pod, 'Normal', 'Pulled', `Successfully pulled image "${c.image}" in ${took}s (${took}s including waiting). Image size: 0 bytes.`);
            recorder.event(pod, 'Normal', 'Created', `Created container: ${c.name}`);
            recorder.event(pod, 'Normal', 'Started', `Started container ${c.name}`);
          }
        }
        if (isJobPod(pod)) this.queue.addAfter(key, seconds(annotation(pod, RUN_SECONDS_ANNOTATION), DEFAULT_RUN_SECONDS) * 1000);
      }
      return;
    }
    if (status.phase !== 'Running') return;
    const podIP = status.podIP ?? this.allocateIP(key, i);
    const startTime = status.startTime ?? at;
    if (isJobPod(pod)) {
      const started = Date.parse(status.containerStatuses?.[0]?.state?.running?.startedAt ?? startTime) || now;
      const due = started + seconds(annotation(pod, RUN_SECONDS_ANNOTATION), DEFAULT_RUN_SECONDS) * 1000;
      if (now < due) return this.queue.addAfter(key, due - now);
      const exitCode = Math.trunc(seconds(annotation(pod, EXIT_CODE_ANNOTATION), 0));
      await this.writeStatus(key, pod, 'terminated', terminatedStatus(pod, nodeIP(i), podIP, startTime, at, exitCode));
      return;
    }
    // The node controller marked the pod not ready while the node was lost: report it Ready again.
    const ready = status.conditions?.find((c) => c.type === 'Ready')?.status;
    if (ready !== 'True') await this.writeStatus(key, pod, `ready-${pod.metadata.resourceVersion}`, runningStatus(pod, nodeIP(i), podIP, startTime, at));
  }

  private async terminate(key: string, pod: KubeObject): Promise<void> {
    const now = this.d.clock.now();
    let since = this.killing.get(key);
    if (since === undefined) {
      this.killing.set(key, (since = now));
      if (isFull(pod) && (statusOf(pod).phase === 'Running' || statusOf(pod).phase === 'Pending')) {
        for (const c of containersOf(pod)) this.d.recorderFor(nodeOf(pod)).event(pod, 'Normal', 'Killing', `Stopping container ${c.name}`);
      }
    }
    const grace = Number(pod.metadata.deletionGracePeriodSeconds ?? 0);
    const wait = Math.min(grace, seconds(annotation(pod, TERMINATION_SECONDS_ANNOTATION), DEFAULT_TERMINATION_SECONDS)) * 1000;
    if (now < since + wait) return this.queue.addAfter(key, since + wait - now);
    try {
      await this.d.apiFor(nodeOf(pod)).delete(RESOURCES.pods, pod.metadata.namespace!, pod.metadata.name!, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid as string } });
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }
}
