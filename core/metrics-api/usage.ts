// Core: the simulated kubelets' resource usage — what a real kubelet's /metrics/resource would report and
// metrics-server would scrape. The simulated containers run nothing, so their usage is a deterministic,
// bounded function of the pod: a share of the container's requests by default, or what the pod's
// `edgeplane.dev/simulated-usage` annotation says (to drive load in tests and demos). Only running pods on
// a node have usage, as only their containers have cgroups to read. Every function is linear in the pod.

import { milliValue, tryParseQuantity, value } from '../quantity';

type Obj = Record<string, any>;

/** `cpu=250m,memory=64Mi` (every container) and `<container>:cpu=500m` (that container), comma-separated. */
export const SIMULATED_USAGE_ANNOTATION = 'edgeplane.dev/simulated-usage';

// Default usage: a tenth of the CPU request and half the memory request, or these when nothing is requested.
const DEFAULT_CPU_SHARE = 0.1;
const DEFAULT_MEMORY_SHARE = 0.5;
export const IDLE_CPU_MILLIS = 1;
export const IDLE_MEMORY_BYTES = 8 * 1024 * 1024;
// A node's own daemons (kubelet, runtime, system slices): what a real node's usage never goes below.
export const NODE_SYSTEM_CPU_MILLIS = 50;
export const NODE_SYSTEM_MEMORY_BYTES = 256 * 1024 * 1024;
// Bounds: a container never reports more than this, whatever the annotation says (keeps sums safe integers).
const MAX_CPU_MILLIS = 1_000_000; // 1000 cores
const MAX_MEMORY_BYTES = 2 ** 40; // 1 TiB
// The annotation is read up to this many characters (annotations are bounded already; this bounds the parse).
const MAX_ANNOTATION_CHARS = 4096;

/** The window metrics-server reports: its default --metric-resolution. */
export const METRICS_WINDOW_SECONDS = 15;

export interface Usage {
  cpuMillis: number;
  memoryBytes: number;
}

export interface ContainerUsage extends Usage {
  name: string;
}

interface Override {
  cpuMillis?: number;
  memoryBytes?: number;
}

const clamp = (n: number, max: number) => (Number.isFinite(n) ? Math.min(Math.max(0, Math.round(n)), max) : 0);

/** The annotation as overrides: '' for every container, else by container name. Bad entries are skipped. */
export function parseSimulatedUsage(text: unknown): Map<string, Override> {
  const out = new Map<string, Override>();
  if (typeof text !== 'string') return out;
  for (const raw of text.slice(0, MAX_ANNOTATION_CHARS).split(',')) {
    const entry = raw.trim();
    const eq = entry.indexOf('=');
    if (eq < 0) continue;
    let key = entry.slice(0, eq).trim();
    const quantity = entry.slice(eq + 1).trim();
    let container = '';
    const colon = key.indexOf(':');
    if (colon >= 0) {
      container = key.slice(0, colon).trim();
      key = key.slice(colon + 1).trim();
    }
    if (key !== 'cpu' && key !== 'memory') continue;
    const q = tryParseQuantity(quantity);
    if (typeof q === 'string' || q.mantissa < 0n) continue;
    const o = out.get(container) ?? {};
    if (key === 'cpu') o.cpuMillis = clamp(milliValue(quantity), MAX_CPU_MILLIS);
    else o.memoryBytes = clamp(value(quantity), MAX_MEMORY_BYTES);
    out.set(container, o);
  }
  return out;
}

/** Whether the pod's containers are running on a node (metrics-server reports only those). */
export function hasUsage(pod: Obj): boolean {
  return pod?.status?.phase === 'Running' && typeof pod?.spec?.nodeName === 'string' && pod.spec.nodeName !== '' && !pod?.metadata?.deletionTimestamp;
}

const containersOf = (pod: Obj): Obj[] => (Array.isArray(pod?.spec?.containers) ? pod.spec.containers.filter((c: unknown) => typeof c === 'object' && c !== null) : []);

/** Each regular container's usage (init containers have finished; they report none). */
export function containerUsage(pod: Obj): ContainerUsage[] {
  const overrides = parseSimulatedUsage(pod?.metadata?.annotations?.[SIMULATED_USAGE_ANNOTATION]);
  const all = overrides.get('') ?? {};
  return containersOf(pod).map((c) => {
    const requests = c.resources?.requests ?? {};
    const mine = overrides.get(String(c.name)) ?? {};
    const reqCpu = milliValue(requests.cpu);
    const reqMemory = value(requests.memory);
    const cpu = mine.cpuMillis ?? all.cpuMillis ?? (reqCpu > 0 ? Math.ceil(reqCpu * DEFAULT_CPU_SHARE) : IDLE_CPU_MILLIS);
    // Whole KiB, as cgroup memory figures are pages.
    const memory = mine.memoryBytes ?? all.memoryBytes ?? (reqMemory > 0 ? Math.floor((reqMemory * DEFAULT_MEMORY_SHARE) / 1024) * 1024 : IDLE_MEMORY_BYTES);
    return { name: String(c.name ?? ''), cpuMillis: clamp(cpu, MAX_CPU_MILLIS), memoryBytes: clamp(memory, MAX_MEMORY_BYTES) };
  });
}

export function podUsage(pod: Obj): Usage {
  let cpuMillis = 0;
  let memoryBytes = 0;
  for (const c of containerUsage(pod)) {
    cpuMillis += c.cpuMillis;
    memoryBytes += c.memoryBytes;
  }
  return { cpuMillis, memoryBytes };
}

/** A node's usage: its system daemons plus its running pods, CPU capped at its capacity (a node cannot exceed it). */
export function nodeUsage(node: Obj, pods: Iterable<Obj>): Usage {
  let cpuMillis = NODE_SYSTEM_CPU_MILLIS;
  let memoryBytes = NODE_SYSTEM_MEMORY_BYTES;
  const name = node?.metadata?.name;
  for (const p of pods) {
    if (p?.spec?.nodeName !== name || !hasUsage(p)) continue;
    const u = podUsage(p);
    cpuMillis += u.cpuMillis;
    memoryBytes += u.memoryBytes;
  }
  const capacity = milliValue(node?.status?.capacity?.cpu);
  if (capacity > 0) cpuMillis = Math.min(cpuMillis, capacity);
  return { cpuMillis, memoryBytes };
}

/** metrics-server's nodes: those whose kubelet answers, i.e. Ready. */
export function nodeReporting(node: Obj): boolean {
  const conditions = Array.isArray(node?.status?.conditions) ? node.status.conditions : [];
  return conditions.some((c: Obj) => c?.type === 'Ready' && c?.status === 'True');
}
