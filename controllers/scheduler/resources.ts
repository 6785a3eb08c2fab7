// Scheduler: what a pod asks of a node (pkg/api/v1/resource PodRequests, scheduler util/pod_resources.go):
// the sum of its containers' requests, at least the largest init container's (sidecars, restartPolicy
// Always, run alongside and add up), plus the pod overhead. Scoring uses the "non-zero" variant, where a
// container without a cpu or memory request counts as 100m / 200Mi, so pods without requests still spread.

import type { KubeObject } from '../../client/types';
import { milliValue, value } from '../../core/quantity';

export interface Resources {
  cpu: number; // millicores
  memory: number; // bytes
  ephemeral: number; // bytes
}

export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

interface Container { resources?: { requests?: Record<string, unknown> }; restartPolicy?: string }
interface PodSpec { containers?: Container[]; initContainers?: Container[]; overhead?: Record<string, unknown> }

const zero = (): Resources => ({ cpu: 0, memory: 0, ephemeral: 0 });

function containerRequests(c: Container, nonZero: boolean): Resources {
  const r = c.resources?.requests ?? {};
  const cpu = r.cpu === undefined ? (nonZero ? DEFAULT_MILLI_CPU_REQUEST : 0) : milliValue(r.cpu);
  const memory = r.memory === undefined ? (nonZero ? DEFAULT_MEMORY_REQUEST : 0) : value(r.memory);
  return { cpu, memory, ephemeral: value(r['ephemeral-storage'] ?? 0) };
}

const add = (a: Resources, b: Resources): Resources => ({ cpu: a.cpu + b.cpu, memory: a.memory + b.memory, ephemeral: a.ephemeral + b.ephemeral });
const max = (a: Resources, b: Resources): Resources => ({ cpu: Math.max(a.cpu, b.cpu), memory: Math.max(a.memory, b.memory), ephemeral: Math.max(a.ephemeral, b.ephemeral) });

/** The pod's requests; `nonZero` fills missing cpu/memory requests with the scheduler's defaults. */
export function podRequests(pod: KubeObject, nonZero = false): Resources {
  const spec = (pod.spec ?? {}) as PodSpec;
  let sum = zero();
  for (const c of spec.containers ?? []) sum = add(sum, containerRequests(c, nonZero));
  // Init containers run one after another; sidecars (restartPolicy Always) keep running.
  let sidecars = zero();
  let initMax = zero();
  for (const c of spec.initContainers ?? []) {
    const r = containerRequests(c, nonZero);
    if (c.restartPolicy === 'Always') sidecars = add(sidecars, r);
    else initMax = max(initMax, add(r, sidecars));
  }
  sum = max(add(sum, sidecars), initMax);
  if (spec.overhead) sum = add(sum, { cpu: milliValue(spec.overhead.cpu ?? 0), memory: value(spec.overhead.memory ?? 0), ephemeral: 0 });
  return sum;
}

export interface Allocatable extends Resources {
  pods: number;
}

export function nodeAllocatable(node: KubeObject): Allocatable {
  const status = (node.status ?? {}) as { allocatable?: Record<string, unknown>; capacity?: Record<string, unknown> };
  const a = status.allocatable ?? status.capacity ?? {};
  return { cpu: milliValue(a.cpu ?? 0), memory: value(a.memory ?? 0), ephemeral: value(a['ephemeral-storage'] ?? 0), pods: value(a.pods ?? 0) };
}
