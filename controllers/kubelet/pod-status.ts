// Simulated kubelets: the pod statuses a kubelet reports through pods/status as a pod starts
// (ContainerCreating), runs (Ready, with an IP), and, for pods of Jobs, completes or fails.

import type { KubeObject } from '../../client/types';

interface Container { name: string; image: string; resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } }

export const containersOf = (pod: KubeObject): Container[] => ((pod.spec as { containers?: Container[] } | undefined)?.containers ?? []);

/** v1qos.GetPodQOS: BestEffort without any requests or limits, Guaranteed when limits equal requests for cpu and memory everywhere. */
export function qosClass(pod: KubeObject): string {
  const cs = containersOf(pod);
  const any = cs.some((c) => Object.keys(c.resources?.requests ?? {}).length || Object.keys(c.resources?.limits ?? {}).length);
  if (!any) return 'BestEffort';
  const guaranteed = cs.every((c) => ['cpu', 'memory'].every((r) => {
    const limit = c.resources?.limits?.[r];
    const request = c.resources?.requests?.[r] ?? limit;
    return limit !== undefined && String(limit) === String(request);
  }));
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

const cond = (type: string, status: string, now: string, reason?: string, message?: string) =>
  ({ type, status, lastProbeTime: null, lastTransitionTime: now, ...(reason ? { reason } : {}), ...(message ? { message } : {}) });

const names = (pod: KubeObject) => containersOf(pod).map((c) => c.name).join(' ');

function base(pod: KubeObject, hostIP: string, startTime: string) {
  return { hostIP, hostIPs: [{ ip: hostIP }], startTime, qosClass: qosClass(pod) };
}

export function creatingStatus(pod: KubeObject, hostIP: string, now: string): Record<string, unknown> {
  const unready = `containers with unready status: [${names(pod)}]`;
  return {
    phase: 'Pending', ...base(pod, hostIP, now),
    conditions: [
      cond('PodReadyToStartContainers', 'False', now), cond('Initialized', 'True', now),
      cond('Ready', 'False', now, 'ContainersNotReady', unready), cond('ContainersReady', 'False', now, 'ContainersNotReady', unready),
      cond('PodScheduled', 'True', now),
    ],
    containerStatuses: containersOf(pod).map((c) => ({
      name: c.name, image: c.image, imageID: '', ready: false, restartCount: 0, started: false, state: { waiting: { reason: 'ContainerCreating' } }, lastState: {},
    })),
  };
}

export function runningStatus(pod: KubeObject, hostIP: string, podIP: string, startTime: string, now: string): Record<string, unknown> {
  return {
    phase: 'Running', ...base(pod, hostIP, startTime), podIP, podIPs: [{ ip: podIP }],
    conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((t) => cond(t, 'True', now)),
    containerStatuses: containersOf(pod).map((c) => ({
      name: c.name, image: c.image, imageID: `docker.io/library/${c.image}@sha256:simulated`, containerID: `containerd://${pod.metadata.uid}-${c.name}`,
      ready: true, restartCount: 0, started: true, state: { running: { startedAt: startTime } }, lastState: {},
    })),
  };
}

/** A Job pod whose containers exited with `exitCode`: Succeeded on 0, else Failed (restartPolicy Never). */
export function terminatedStatus(pod: KubeObject, hostIP: string, podIP: string, startTime: string, now: string, exitCode: number): Record<string, unknown> {
  const ok = exitCode === 0;
  return {
    phase: ok ? 'Succeeded' : 'Failed', ...base(pod, hostIP, startTime), podIP, podIPs: [{ ip: podIP }],
    conditions: [
      cond('PodReadyToStartContainers', 'False', now), cond('Initialized', 'True', now, 'PodCompleted'),
      cond('Ready', 'False', now, 'PodCompleted'), cond('ContainersReady', 'False', now, 'PodCompleted'), cond('PodScheduled', 'True', now),
    ],
    containerStatuses: containersOf(pod).map((c) => ({
      name: c.name, image: c.image, imageID: `docker.io/library/${c.image}@sha256:simulated`, containerID: `containerd://${pod.metadata.uid}-${c.name}`,
      ready: false, restartCount: 0, started: false, lastState: {},
      state: { terminated: { exitCode, reason: ok ? 'Completed' : 'Error', startedAt: startTime, finishedAt: now, containerID: `containerd://${pod.metadata.uid}-${c.name}` } },
    })),
  };
}
