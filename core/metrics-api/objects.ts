// Core: metrics.k8s.io/v1beta1 NodeMetrics and PodMetrics as metrics-server answers them (k8s.io/metrics
// pkg/apis/metrics/v1beta1 types; metrics-server pkg/api/{node,pod,table}.go): the object's metadata is the
// node's or pod's name, namespace, labels and creation time; usage is in canonical quantities; the Table has
// Name, one column per resource (sorted) and Window, and no columns at all when there are no rows.

import { containerUsage, METRICS_WINDOW_SECONDS, nodeUsage, type Usage } from './usage';
import { rowObject, type IncludeObject, type Table } from '../tables/table';
import type { ResourceType } from '../registry';

type Obj = Record<string, any>;

export const METRICS_GROUP = 'metrics.k8s.io';
export const METRICS_VERSION = 'v1beta1';
const API_VERSION = `${METRICS_GROUP}/${METRICS_VERSION}`;

/** CPU as Quantity.String() of a milli value: "250m", "2" for whole cores, "0". */
export function cpuQuantity(millis: number): string {
  if (millis === 0) return '0';
  return millis % 1000 === 0 ? String(millis / 1000) : `${millis}m`;
}

/** Memory as Quantity.String() of a BinarySI byte count: the largest exact binary suffix, else plain bytes. */
export function memoryQuantity(bytes: number): string {
  if (bytes === 0) return '0';
  const suffixes = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi'];
  let n = bytes;
  let i = 0;
  while (i < suffixes.length - 1 && n % 1024 === 0) {
    n /= 1024;
    i++;
  }
  return `${n}${suffixes[i]}`;
}

const resources = (u: Usage) => ({ cpu: cpuQuantity(u.cpuMillis), memory: memoryQuantity(u.memoryBytes) });

/** The scrape time: `now` to the second (metrics-server's timestamps are the kubelet's scrape, RFC 3339). */
export function scrapeTime(now: number): string {
  return new Date(Math.floor(now / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// Go's time.Duration.String() of the window.
const WINDOW = `${METRICS_WINDOW_SECONDS}s`;

function meta(o: Obj): Obj {
  const m: Obj = { name: o?.metadata?.name };
  if (o?.metadata?.namespace) m.namespace = o.metadata.namespace;
  m.creationTimestamp = o?.metadata?.creationTimestamp ?? null;
  if (o?.metadata?.labels && Object.keys(o.metadata.labels).length) m.labels = o.metadata.labels;
  return m;
}

export function nodeMetrics(node: Obj, pods: Iterable<Obj>, now: number): Obj {
  return { kind: 'NodeMetrics', apiVersion: API_VERSION, metadata: meta(node), timestamp: scrapeTime(now), window: WINDOW, usage: resources(nodeUsage(node, pods)) };
}

export function podMetrics(pod: Obj, now: number): Obj {
  return {
    kind: 'PodMetrics', apiVersion: API_VERSION, metadata: meta(pod), timestamp: scrapeTime(now), window: WINDOW,
    containers: containerUsage(pod).map((c) => ({ name: c.name, usage: resources(c) })),
  };
}

export function metricsList(kind: 'NodeMetricsList' | 'PodMetricsList', items: Obj[]): Obj {
  return { kind, apiVersion: API_VERSION, metadata: {}, items };
}

/** addNodeMetricsToTable / addPodMetricsToTable, a pod's row summing its containers. */
export function metricsTable(type: ResourceType, items: Obj[], include: IncludeObject): Table {
  const rows = items.map((m) => {
    const u = m.kind === 'PodMetrics' ? podTotal(m) : m.usage;
    return { cells: [m.metadata.name, u.cpu, u.memory, WINDOW], object: rowObject(type, m, include) };
  });
  const columnDefinitions = items.length === 0 ? [] : [
    { name: 'Name', type: 'string', format: 'name', description: 'Name of the resource', priority: 0 },
    { name: 'cpu', type: 'string', format: 'quantity', description: '', priority: 0 },
    { name: 'memory', type: 'string', format: 'quantity', description: '', priority: 0 },
    { name: 'Window', type: 'string', format: 'duration', description: '', priority: 0 },
  ];
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: {}, columnDefinitions, rows };
}

function podTotal(m: Obj): { cpu: string; memory: string } {
  return resources(podUsageFromMetrics(m));
}

function podUsageFromMetrics(m: Obj): Usage {
  // Re-derived from the containers' quantities, which this module wrote in milli / byte units.
  let cpuMillis = 0;
  let memoryBytes = 0;
  for (const c of m.containers ?? []) {
    cpuMillis += parseMillis(c.usage.cpu);
    memoryBytes += parseBytes(c.usage.memory);
  }
  return { cpuMillis, memoryBytes };
}

const parseMillis = (q: string) => (q.endsWith('m') ? Number(q.slice(0, -1)) : Number(q) * 1000);
const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50 };
const parseBytes = (q: string) => {
  const s = q.slice(-2);
  return BINARY[s] ? Number(q.slice(0, -2)) * BINARY[s] : Number(q);
};

