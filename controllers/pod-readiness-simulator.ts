// Controllers: a stand-in for the scheduler and kubelets until simulated nodes exist (kwok's "fast"
// stages: node-initialize, pod-ready). It registers SIMULATED_NODES Nodes (node-1, node-2, ...) and puts
// each pending pod on the node with the fewest pods, then reports it Running and Ready with an IP from
// the node's pod CIDR, as a kubelet would through pods/status. It writes as system:node:<node>.
// A later change replaces it with per-node simulated kubelets and a real scheduler.

import type { KubeObject } from '../client/types';
import { objectKey } from '../client/cache';
import { isAlreadyExists, isNotFound, RESOURCES, type Api } from './api-client';
import type { Clock } from './clock';
import { kubeTime } from './events';
import type { SharedInformer } from './informers';
import { logSyncError, runWorker, WorkQueue } from './workqueue';
import { targetNode } from './daemonset-plan';

export const KUBELET_VERSION = 'v1.32.0-edgeplane';

export const nodeName = (i: number): string => `node-${i}`;

export function nodeObject(i: number): KubeObject {
  const name = nodeName(i);
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: {
      name,
      labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux', 'beta.kubernetes.io/arch': 'amd64' },
      annotations: { 'edgeplane.dev/simulated': 'pod-readiness-simulator' },
    },
    spec: { podCIDR: `10.244.${i}.0/24`, podCIDRs: [`10.244.${i}.0/24`] },
  };
}

export function nodeStatus(i: number, now: string): Record<string, unknown> {
  const cond = (type: string, status: string, reason: string, message: string) => ({ type, status, lastHeartbeatTime: now, lastTransitionTime: now, reason, message });
  const resources = { cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '100Gi' };
  return {
    capacity: resources, allocatable: resources,
    conditions: [
      cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
      cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
      cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
      cond('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
    ],
    addresses: [{ type: 'InternalIP', address: `10.0.${i}.1` }, { type: 'Hostname', address: nodeName(i) }],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: '', systemUUID: '', bootID: '', kernelVersion: '6.1.0', osImage: 'edgeplane simulated node', containerRuntimeVersion: 'simulated://1.0',
      kubeletVersion: KUBELET_VERSION, kubeProxyVersion: KUBELET_VERSION, operatingSystem: 'linux', architecture: 'amd64',
    },
  };
}

/** The status a kubelet reports for a started pod (kwok pod-ready). */
export function runningPodStatus(pod: KubeObject, node: number, podIP: string, now: string): Record<string, unknown> {
  const cond = (type: string) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: now });
  const containers = ((pod.spec as { containers?: { name: string; image: string }[] } | undefined)?.containers ?? []);
  return {
    phase: 'Running',
    conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(cond),
    hostIP: `10.0.${node}.1`, hostIPs: [{ ip: `10.0.${node}.1` }],
    podIP, podIPs: [{ ip: podIP }],
    startTime: now,
    containerStatuses: containers.map((c) => ({
      name: c.name, state: { running: { startedAt: now } }, lastState: {}, ready: true, restartCount: 0,
      image: c.image, imageID: `simulated://${c.image}`, containerID: `simulated://${pod.metadata.uid}/${c.name}`, started: true,
    })),
    qosClass: 'BestEffort',
  };
}

export interface SimulatorDeps {
  apiFor: (node: string) => Api; // each node writes with its own identity
  pods: SharedInformer;
  nodes: SharedInformer;
  clock: Clock;
  count: number;
}

export class PodReadinessSimulator {
  readonly queue: WorkQueue;
  private readonly ipsInUse = new Set<string>();
  private readonly reported = new Map<string, string>(); // pod key → uid reported Running, until the informer shows it
  private readonly placed = new Map<string, number>(); // pod key → node index, including placements the informer has not shown yet
  private readonly perNode: number[]; // pods placed per node index, kept with `placed`

  constructor(private readonly d: SimulatorDeps) {
    this.queue = new WorkQueue(d.clock);
    this.perNode = new Array<number>(d.count + 1).fill(0);
    const track = (p: KubeObject) => {
      const ip = (p.status as { podIP?: string } | undefined)?.podIP;
      if (ip) this.ipsInUse.add(ip);
      const node = /^node-(\d+)$/.exec((p.spec as { nodeName?: string } | undefined)?.nodeName ?? '');
      if (node) this.place(objectKey(p), Number(node[1]));
      this.queue.add(objectKey(p));
    };
    d.pods.addHandlers({
      add: track, update: track,
      delete: (p) => {
        this.reported.delete(objectKey(p));
        this.place(objectKey(p), undefined);
        const ip = (p.status as { podIP?: string } | undefined)?.podIP;
        if (ip) this.ipsInUse.delete(ip);
      },
    });
  }

  /** Registers the nodes (or re-asserts their status), then runs the workers. */
  async start(workers = 2): Promise<Promise<void>[]> {
    for (let i = 1; i <= this.d.count; i++) {
      const api = this.d.apiFor(nodeName(i));
      try {
        await api.create(RESOURCES.nodes, '', nodeObject(i));
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
      await api.patch(RESOURCES.nodes, '', nodeName(i), 'merge', { status: nodeStatus(i, kubeTime(this.d.clock.now())) }, 'status');
    }
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), {
      onError: logSyncError('pod-readiness-simulator'),
    }));
  }

  private leastLoadedNode(): number {
    let best = 1;
    for (let i = 2; i <= this.d.count; i++) if (this.perNode[i] < this.perNode[best]) best = i;
    return best;
  }

  private place(key: string, node: number | undefined): void {
    const prior = this.placed.get(key);
    if (prior === node) return;
    if (prior !== undefined && prior <= this.d.count) this.perNode[prior]--;
    if (node === undefined) this.placed.delete(key);
    else {
      this.placed.set(key, node);
      if (node <= this.d.count) this.perNode[node]++;
    }
  }

  private allocateIP(node: number): string {
    for (let host = 2; host < 255; host++) {
      const ip = `10.244.${node}.${host}`;
      if (!this.ipsInUse.has(ip)) {
        this.ipsInUse.add(ip);
        return ip;
      }
    }
    throw new Error(`node-${node}: pod CIDR exhausted`);
  }

  async sync(key: string): Promise<void> {
    const pod = this.d.pods.get(key);
    if (!pod || pod.metadata.deletionTimestamp) return;
    const status = (pod.status as { phase?: string; podIP?: string } | undefined) ?? {};
    if (status.phase === 'Running' && this.reported.get(key) !== `${pod.metadata.uid}/finished`) return this.finishJobPod(key, pod);
    if (status.phase !== 'Pending') {
      this.reported.delete(key);
      return;
    }
    if (this.reported.get(key) === pod.metadata.uid) return; // our report is on its way through the informer
    let assigned = (pod.spec as { nodeName?: string } | undefined)?.nodeName ?? '';
    let index = Number(/^node-(\d+)$/.exec(assigned)?.[1] ?? 0);
    if (assigned) this.place(key, index);
    else {
      // Stand-in only: a pod pinned to one node by a metadata.name matchFields affinity (DaemonSet pods) goes there.
      const pinned = /^node-(\d+)$/.exec(targetNode(pod) ?? '');
      index = pinned ? Number(pinned[1]) : this.leastLoadedNode();
      this.place(key, index);
      assigned = nodeName(index);
      try {
        await this.d.apiFor(assigned).patch(RESOURCES.pods, pod.metadata.namespace!, pod.metadata.name!, 'merge', { spec: { nodeName: assigned }, metadata: { uid: pod.metadata.uid } });
      } catch (e) {
        if (isNotFound(e)) return;
        throw e;
      }
    }
    if (!(index >= 1 && index <= this.d.count)) return; // a node this simulator does not run
    const ip = status.podIP ?? this.allocateIP(index);
    await this.d.apiFor(assigned).patch(RESOURCES.pods, pod.metadata.namespace!, pod.metadata.name!, 'merge',
      { status: runningPodStatus(pod, index, ip, kubeTime(this.d.clock.now())) }, 'status').then(() => {
      this.reported.set(key, pod.metadata.uid as string);
    }, (e) => {
      if (!isNotFound(e)) throw e;
    });
  }

  // Stand-in only (the simulated kubelets replace this): a running pod of a Job runs to completion at once,
  // Succeeded, or Failed with the exit code of the annotation edgeplane.dev/simulate-exit-code when non-zero.
  private async finishJobPod(key: string, pod: KubeObject): Promise<void> {
    const owner = ((pod.metadata.ownerReferences as { kind?: string; controller?: boolean }[] | undefined) ?? []).find((r) => r.controller);
    if (owner?.kind !== 'Job') return;
    const node = (pod.spec as { nodeName?: string } | undefined)?.nodeName ?? '';
    const code = Number((pod.metadata.annotations as Record<string, string> | undefined)?.['edgeplane.dev/simulate-exit-code'] ?? 0) || 0;
    const now = kubeTime(this.d.clock.now());
    const prior = (pod.status as { containerStatuses?: { name: string; image: string; imageID?: string; containerID?: string; state?: { running?: { startedAt?: string } } }[]; conditions?: { type: string }[] }) ?? {};
    const containerStatuses = (prior.containerStatuses ?? []).map((c) => ({
      ...c, ready: false, started: false,
      state: { terminated: { exitCode: code, reason: code ? 'Error' : 'Completed', startedAt: c.state?.running?.startedAt ?? now, finishedAt: now, containerID: c.containerID } },
    }));
    const conditions = (prior.conditions ?? []).map((c) => (c.type === 'Ready' || c.type === 'ContainersReady' || c.type === 'PodReadyToStartContainers'
      ? { ...c, status: 'False', lastTransitionTime: now, reason: 'PodCompleted' } : c));
    await this.d.apiFor(node).patch(RESOURCES.pods, pod.metadata.namespace!, pod.metadata.name!, 'merge',
      { status: { phase: code ? 'Failed' : 'Succeeded', conditions, containerStatuses } }, 'status').then(() => {
      this.reported.set(key, `${pod.metadata.uid}/finished`);
    }, (e) => {
      if (!isNotFound(e)) throw e;
    });
  }
}
