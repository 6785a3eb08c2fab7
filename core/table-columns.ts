// Core: the `kubectl get` columns of each built-in type, as data: a port of kubernetes
// pkg/printers/internalversion/printers.go (AddHandlers and the print* functions, 1.32).
//
// The apiserver always prints with Wide: true (pkg/printers/storage TableConvertor), so every column is here and
// kubectl hides the priority-1 ones unless -o wide.

import { formatLabelSelector } from './selectors/label-selector';

export type CellValue = string | number | boolean;
export type ColumnType = 'string' | 'integer' | 'number' | 'boolean' | 'date';

export interface Column {
  name: string;
  type: ColumnType;
  format: string;
  priority: number;
  description: string;
  cell: (obj: KubeObj, now: number) => CellValue;
}

export interface RowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface TableSpec {
  columns: readonly Column[];
  // Per-row conditions; only pods have them (Completed for Succeeded/Failed pods).
  conditions?: (obj: KubeObj) => RowCondition[] | undefined;
}

/** The shape every served object has; columns read further fields through the per-kind views below. */
export interface KubeObj {
  metadata?: {
    name?: string;
    creationTimestamp?: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

// Objects are schemaless JSON; cells read them through this untyped, read-only view.
type View = any;

// ---- formatting helpers, each mirroring the Go helper named in its comment ----

/** apimachinery pkg/util/duration.HumanDuration: ~2-3 significant figures ("5s", "3m2s", "10m", "2d3h"). */
function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const dy = days % 365;
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${years}y`;
}

function parseTime(ts: unknown): number | undefined {
  if (typeof ts !== 'string' || ts === '') return undefined;
  const t = Date.parse(ts);
  return Number.isNaN(t) ? undefined : t;
}

/** printers.go translateTimestampSince: "<unknown>" for a zero time. */
function since(ts: unknown, now: number): string {
  const t = parseTime(ts);
  return t === undefined ? '<unknown>' : humanDuration(now - t);
}

/** labels.FormatLabels: sorted `k=v` pairs, or "<none>". */
function formatLabels(m: Record<string, string> | undefined): string {
  const pairs = Object.entries(m ?? {}).map(([k, v]) => `${k}=${v}`).sort();
  return pairs.length ? pairs.join(',') : '<none>';
}

/**
 * printDeployment prints LabelSelectorAsSelector(ls).String() itself rather than FormatLabelSelector:
 * "" instead of "<none>", "<invalid>" instead of "<error>".
 */
function deploymentSelector(ls: View): string {
  const s = formatLabelSelector(ls);
  return s === '<none>' ? '' : s === '<error>' ? '<invalid>' : s;
}

/** printers.go layoutContainerCells: names and images, comma-joined. */
function containerCells(podSpec: View): { names: string; images: string } {
  const cs: View[] = podSpec?.containers ?? [];
  return { names: cs.map((c) => c.name ?? '').join(','), images: cs.map((c) => c.image ?? '').join(',') };
}

/** printers.go listWithMoreString: at most 3 entries, then "+ N more...". */
function listWithMore(items: string[], unset: string): string {
  const max = 3;
  const shown = items.slice(0, max).join(',');
  if (items.length > max) return `${shown} + ${items.length - max} more...`;
  return shown || unset;
}

/** net.JoinHostPort: brackets around IPv6 hosts. */
function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

// ---- column builders ----

// metav1.ObjectMeta SwaggerDoc texts, which kube puts in every Name and Age column definition.
const NAME_DOC =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may ' +
  'allow a client to request the generation of an appropriate name automatically. Name is primarily intended for ' +
  'creation idempotence and configuration definition. Cannot be updated. More info: ' +
  'https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';
const CREATED_DOC =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not ' +
  'guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is ' +
  'represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: ' +
  'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';
const CONTAINERS_DOC = 'Names of each container in the template.';
const IMAGES_DOC = 'Images referenced by each container in the template.';

function col(
  name: string,
  type: ColumnType,
  description: string,
  cell: (o: View, now: number) => CellValue,
  opts: { priority?: number; format?: string } = {},
): Column {
  return { name, type, format: opts.format ?? '', priority: opts.priority ?? 0, description, cell };
}

function wide(name: string, type: ColumnType, description: string, cell: (o: View, now: number) => CellValue) {
  return col(name, type, description, cell, { priority: 1 });
}

const NAME = col('Name', 'string', NAME_DOC, (o) => o.metadata?.name ?? '', { format: 'name' });
const AGE = col('Age', 'string', CREATED_DOC, (o, now) => since(o.metadata?.creationTimestamp, now));
const CONTAINERS = wide('Containers', 'string', CONTAINERS_DOC, (o) => containerCells(o.spec?.template?.spec).names);
const IMAGES = wide('Images', 'string', IMAGES_DOC, (o) => containerCells(o.spec?.template?.spec).images);

/** The apiserver's default convertor for types without printers (apiserver pkg/registry/rest/table.go). */
export const DEFAULT_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Created At', 'date', CREATED_DOC, (o) => {
      const t = parseTime(o.metadata?.creationTimestamp);
      // Go formats the zero time as 0001-01-01T00:00:00Z.
      return t === undefined ? '0001-01-01T00:00:00Z' : new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
    }),
  ],
};


// ---- pods (printPod) ----

interface PodSummary {
  ready: number;
  total: number;
  reason: string;
  restarts: number;
  lastRestart: number | undefined; // ms
}

// READY, STATUS and RESTARTS come from one pass over the statuses; cache it per object for the row.
const podSummaries = new WeakMap<object, PodSummary>();

function podSummary(pod: View): PodSummary {
  let s = podSummaries.get(pod);
  if (!s) podSummaries.set(pod, (s = summarizePod(pod)));
  return s;
}

function isRestartableInit(c: View): boolean {
  return c?.restartPolicy === 'Always';
}

function later(a: number | undefined, cs: View): number | undefined {
  const t = parseTime(cs.lastState?.terminated?.finishedAt);
  return t !== undefined && (a === undefined || t > a) ? t : a;
}

function hasCondition(status: View, type: string): boolean {
  return (status.conditions ?? []).some((c: View) => c.type === type && c.status === 'True');
}

function exitReason(t: View, prefix: string): string {
  if (t.reason) return prefix + t.reason;
  return t.signal ? `${prefix}Signal:${t.signal}` : `${prefix}ExitCode:${t.exitCode ?? 0}`;
}

function summarizePod(pod: View): PodSummary {
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  const phase: string = status.phase ?? '';
  const initContainers: View[] = spec.initContainers ?? [];
  const initByName = new Map(initContainers.map((c) => [c.name, c]));
  let total = (spec.containers ?? []).length + initContainers.filter(isRestartableInit).length;
  let ready = 0;
  let restarts = 0;
  let restartableRestarts = 0;
  let lastRestart: number | undefined;
  let lastRestartableRestart: number | undefined;
  let reason: string = status.reason || phase;
  if ((status.conditions ?? []).some((c: View) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) {
    reason = 'SchedulingGated';
  }

  let initializing = false;
  const initStatuses: View[] = status.initContainerStatuses ?? [];
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i];
    const restartable = isRestartableInit(initByName.get(cs.name));
    restarts += cs.restartCount ?? 0;
    lastRestart = later(lastRestart, cs);
    if (restartable) {
      restartableRestarts += cs.restartCount ?? 0;
      lastRestartableRestart = later(lastRestartableRestart, cs);
    }
    const { terminated, waiting } = cs.state ?? {};
    if (terminated && (terminated.exitCode ?? 0) === 0) continue;
    if (restartable && cs.started === true) {
      if (cs.ready) ready++;
      continue;
    }
    if (terminated) reason = exitReason(terminated, 'Init:');
    else if (waiting?.reason && waiting.reason !== 'PodInitializing') reason = `Init:${waiting.reason}`;
    else reason = `Init:${i}/${initContainers.length}`;
    initializing = true;
    break;
  }

  if (!initializing || hasCondition(status, 'Initialized')) {
    restarts = restartableRestarts;
    lastRestart = lastRestartableRestart;
    let hasRunning = false;
    const statuses: View[] = status.containerStatuses ?? [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i];
      const state = cs.state ?? {};
      restarts += cs.restartCount ?? 0;
      lastRestart = later(lastRestart, cs);
      if (state.waiting?.reason) reason = state.waiting.reason;
      else if (state.terminated) reason = exitReason(state.terminated, '');
      else if (cs.ready && state.running) {
        hasRunning = true;
        ready++;
      }
    }
    // A pod whose last-listed container completed but another still runs is not "Completed".
    if (reason === 'Completed' && hasRunning) reason = hasCondition(status, 'Ready') ? 'Running' : 'NotReady';
  }

  if (pod.metadata?.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata?.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';
  return { ready, total, reason, restarts, lastRestart };
}

function readinessGates(pod: View): string {
  const gates: View[] = pod.spec?.readinessGates ?? [];
  if (!gates.length) return '<none>';
  const conditions: View[] = pod.status?.conditions ?? [];
  const passed = gates.filter((g) => conditions.find((c) => c.type === g.conditionType)?.status === 'True').length;
  return `${passed}/${gates.length}`;
}

const POD_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.', (o) => {
      const s = podSummary(o);
      return `${s.ready}/${s.total}`;
    }),
    col('Status', 'string', 'The aggregate status of the containers in this pod.', (o) => podSummary(o).reason),
    col(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
      (o, now) => {
        const s = podSummary(o);
        return s.restarts !== 0 && s.lastRestart !== undefined
          ? `${s.restarts} (${humanDuration(now - s.lastRestart)} ago)`
          : String(s.restarts);
      },
    ),
    AGE,
    // podIPs[0]; v1→internal conversion fills podIPs from a lone podIP, so fall back to it.
    wide('IP', 'string', 'podIP address allocated to the pod.', (o) =>
      o.status?.podIPs?.[0]?.ip || o.status?.podIP || '<none>'),
    wide('Node', 'string', 'NodeName indicates in which node this pod is scheduled.', (o) => o.spec?.nodeName || '<none>'),
    wide('Nominated Node', 'string', 'nominatedNodeName is set only when this pod preempts other pods on the node.',
      (o) => o.status?.nominatedNodeName || '<none>'),
    wide('Readiness Gates', 'string', 'If specified, all readiness gates will be evaluated for pod readiness.',
      readinessGates),
  ],
  conditions: (o: View) => {
    if (o.status?.phase === 'Succeeded') {
      return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
    }
    if (o.status?.phase === 'Failed') return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
    return undefined;
  },
};

// ---- workloads (printDeployment, printReplicaSet, printStatefulSet, printDaemonSet, printJob) ----

// apps/v1 defaults spec.replicas to 1; an object stored without defaulting reads the same.
const desired = (o: View): number => o.spec?.replicas ?? 1;
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const SELECTOR = wide('Selector', 'string', 'Label query over pods that should match the replica count.',
  (o) => formatLabelSelector(o.spec?.selector));

const DEPLOYMENT_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Ready', 'string', 'Number of the pod with ready state', (o) => `${num(o.status?.readyReplicas)}/${desired(o)}`),
    col('Up-to-date', 'string', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
      (o) => num(o.status?.updatedReplicas)),
    col('Available', 'string', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
      (o) => num(o.status?.availableReplicas)),
    AGE,
    CONTAINERS,
    IMAGES,
    wide('Selector', 'string', 'Label selector for pods.', (o) => deploymentSelector(o.spec?.selector)),
  ],
};

const REPLICASET_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Desired', 'integer', 'Replicas is the number of desired replicas.', desired),
    col('Current', 'integer', 'Replicas is the most recently observed number of replicas.', (o) => num(o.status?.replicas)),
    col('Ready', 'integer', 'The number of ready replicas for this replica set.', (o) => num(o.status?.readyReplicas)),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR,
  ],
};

const STATEFULSET_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Ready', 'string', 'Number of the pod with ready state', (o) => `${num(o.status?.readyReplicas)}/${desired(o)}`),
    AGE,
    CONTAINERS,
    IMAGES,
  ],
};

const DAEMONSET_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Desired', 'integer', 'The total number of nodes that should be running the daemon pod.',
      (o) => num(o.status?.desiredNumberScheduled)),
    col('Current', 'integer', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.',
      (o) => num(o.status?.currentNumberScheduled)),
    col('Ready', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.',
      (o) => num(o.status?.numberReady)),
    col('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod',
      (o) => num(o.status?.updatedNumberScheduled)),
    col('Available', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.',
      (o) => num(o.status?.numberAvailable)),
    col('Node Selector', 'string', "NodeSelector is a selector which must be true for the pod to fit on a node.",
      (o) => formatLabels(o.spec?.template?.spec?.nodeSelector)),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR,
  ],
};

function jobStatus(o: View): string {
  const conds: View[] = o.status?.conditions ?? [];
  // hasJobCondition: the FIRST condition of the type decides.
  const has = (type: string) => conds.find((c) => c.type === type)?.status === 'True';
  if (has('Complete')) return 'Complete';
  if (has('Failed')) return 'Failed';
  if (o.metadata?.deletionTimestamp) return 'Terminating';
  if (has('Suspended')) return 'Suspended';
  if (has('FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function jobCompletions(o: View): string {
  const succeeded = num(o.status?.succeeded);
  if (o.spec?.completions != null) return `${succeeded}/${o.spec.completions}`;
  const parallelism = num(o.spec?.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(o: View, now: number): string {
  const start = parseTime(o.status?.startTime);
  if (start === undefined) return '';
  return humanDuration((parseTime(o.status?.completionTime) ?? now) - start);
}

const JOB_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Status', 'string', 'Status of the job.', jobStatus),
    col('Completions', 'string', 'The number of pods which reached phase Succeeded.', jobCompletions),
    col('Duration', 'string', 'Time required to complete the job.', jobDuration),
    AGE,
    CONTAINERS,
    IMAGES,
    SELECTOR,
  ],
};

// ---- services (printService; wide = true, so load-balancer addresses are not clipped) ----

function serviceExternalIP(spec: View, status: View): string {
  const externalIPs: string[] = spec.externalIPs ?? [];
  switch (spec.type ?? 'ClusterIP') {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = [...new Set(((status?.loadBalancer?.ingress ?? []) as View[])
        .map((i) => i.ip || i.hostname).filter(Boolean) as string[])].sort();
      if (externalIPs.length) return [...lb, ...externalIPs].join(',');
      return lb.length ? lb.join(',') : '<pending>';
    }
    case 'ExternalName':
      return spec.externalName ?? '';
    default:
      return '<unknown>';
  }
}

function servicePorts(spec: View): string {
  const ports: View[] = spec.ports ?? [];
  const text = ports
    .map((p) => `${p.port}${p.nodePort > 0 ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`)
    .join(',');
  return text || '<none>';
}

const SERVICE_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Type', 'string', 'type determines how the Service is exposed.', (o) => o.spec?.type ?? 'ClusterIP'),
    // clusterIPs[0]; fall back to clusterIP for objects stored before clusterIPs was filled in.
    col('Cluster-IP', 'string', 'clusterIP is the IP address of the service and is usually assigned randomly.',
      (o) => o.spec?.clusterIPs?.[0] || o.spec?.clusterIP || '<none>'),
    col('External-IP', 'string', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.',
      (o) => serviceExternalIP(o.spec ?? {}, o.status)),
    col('Port(s)', 'string', 'The list of ports that are exposed by this service.', (o) => servicePorts(o.spec ?? {})),
    AGE,
    wide('Selector', 'string', 'Route service traffic to pods with label keys and values matching this selector.',
      (o) => formatLabels(o.spec?.selector)),
  ],
};

// ---- nodes (printNode) ----

function nodeStatus(o: View): string {
  const ready = ((o.status?.conditions ?? []) as View[]).filter((c) => c.type === 'Ready').pop();
  const status = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (o.spec?.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

function nodeRoles(o: View): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries((o.metadata?.labels ?? {}) as Record<string, string>)) {
    if (k.startsWith('node-role.kubernetes.io/') && k.length > 'node-role.kubernetes.io/'.length) {
      roles.add(k.slice('node-role.kubernetes.io/'.length));
    } else if (k === 'kubernetes.io/role' && v !== '') roles.add(v);
  }
  return [...roles].sort().join(',') || '<none>';
}

function nodeAddress(o: View, type: string): string {
  return ((o.status?.addresses ?? []) as View[]).find((a) => a.type === type)?.address ?? '<none>';
}

const NODE_INFO = (field: string) => (o: View) => o.status?.nodeInfo?.[field] || '<unknown>';

const NODE_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Status', 'string', 'The status of the node', nodeStatus),
    col('Roles', 'string', 'The roles of the node', nodeRoles),
    AGE,
    col('Version', 'string', 'Kubelet Version reported by the node.', (o) => o.status?.nodeInfo?.kubeletVersion ?? ''),
    wide('Internal-IP', 'string', 'List of addresses reachable to the node.', (o) => nodeAddress(o, 'InternalIP')),
    wide('External-IP', 'string', 'List of addresses reachable to the node.', (o) => nodeAddress(o, 'ExternalIP')),
    wide('OS-Image', 'string', 'OS Image reported by the node from /etc/os-release.', NODE_INFO('osImage')),
    wide('Kernel-Version', 'string', "Kernel Version reported by the node from 'uname -r'.", NODE_INFO('kernelVersion')),
    wide('Container-Runtime', 'string', 'ContainerRuntime Version reported by the node through runtime remote API.',
      NODE_INFO('containerRuntimeVersion')),
  ],
};

// ---- small core types ----

const NAMESPACE_TABLE: TableSpec = {
  columns: [NAME, col('Status', 'string', 'The status of the namespace', (o) => o.status?.phase ?? ''), AGE],
};

const count = (v: unknown): number => (v && typeof v === 'object' ? Object.keys(v).length : 0);

const CONFIGMAP_TABLE: TableSpec = {
  columns: [
    NAME,
    // printConfigMap counts binaryData too.
    col('Data', 'string', 'Data contains the configuration data.', (o) => count(o.data) + count(o.binaryData)),
    AGE,
  ],
};

const SECRET_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Type', 'string', 'Used to facilitate programmatic handling of secret data.', (o) => o.type ?? ''),
    col('Data', 'string', 'Data contains the secret data.', (o) => count(o.data)),
    AGE,
  ],
};

const SERVICEACCOUNT_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Secrets', 'string', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.',
      (o) => (Array.isArray(o.secrets) ? o.secrets.length : 0)),
    AGE,
  ],
};

/** printers.go formatEndpoints(endpoints, nil): host:port per address and port, at most 3. */
function formatEndpoints(o: View): string {
  const subsets: View[] = o.subsets ?? [];
  if (!subsets.length) return '<none>';
  const all: string[] = [];
  for (const ss of subsets) {
    const addrs: View[] = ss.addresses ?? [];
    const ports: View[] = ss.ports ?? [];
    // Headless services may have no ports: list bare IPs.
    if (!ports.length) all.push(...addrs.map((a) => a.ip));
    for (const p of ports) all.push(...addrs.map((a) => joinHostPort(a.ip, p.port)));
  }
  return all.length > 3 ? `${all.slice(0, 3).join(',')} + ${all.length - 3} more...` : all.join(',');
}

const ENDPOINTS_TABLE: TableSpec = {
  columns: [NAME, col('Endpoints', 'string', 'The set of all endpoints is the union of all subsets.', formatEndpoints), AGE],
};

const ENDPOINTSLICE_TABLE: TableSpec = {
  columns: [
    NAME,
    col('AddressType', 'string', 'addressType specifies the type of address carried by this EndpointSlice.',
      (o) => o.addressType ?? ''),
    col('Ports', 'string', 'ports specifies the list of network ports exposed by each endpoint in this slice.',
      (o) => listWithMore(((o.ports ?? []) as View[]).map((p) => (p.port != null ? String(p.port) : p.name ?? '*')), '<unset>')),
    col('Endpoints', 'string', 'endpoints is a list of unique endpoints in this slice.',
      (o) => listWithMore(((o.endpoints ?? []) as View[]).flatMap((e) => e.addresses ?? []), '<unset>')),
    AGE,
  ],
};

const LEASE_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease.',
      (o) => o.spec?.holderIdentity ?? ''),
    AGE,
  ],
};

// ---- events (printEvent, wide) ----

function eventFirstSeen(o: View, now: number): string {
  return parseTime(o.firstTimestamp) !== undefined ? since(o.firstTimestamp, now) : since(o.eventTime, now);
}

function eventLastSeen(o: View, now: number): string {
  if (o.series) return since(o.series.lastObservedTime, now);
  return parseTime(o.lastTimestamp) !== undefined ? since(o.lastTimestamp, now) : eventFirstSeen(o, now);
}

function eventCount(o: View): number {
  if (o.series) return num(o.series.count);
  // Singleton events of the events.k8s.io API leave count unset.
  return num(o.count) || 1;
}

function eventObject(o: View): string {
  const kind = String(o.involvedObject?.kind ?? '').toLowerCase();
  return o.involvedObject?.name ? `${kind}/${o.involvedObject.name}` : kind;
}

function eventSource(o: View): string {
  const component = o.source?.component || o.reportingComponent || '';
  const instance = o.source?.host || o.reportingInstance || '';
  return instance ? `${component}, ${instance}` : component;
}

const EVENT_TABLE: TableSpec = {
  columns: [
    col('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.', eventLastSeen),
    col('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future', (o) => o.type ?? ''),
    col('Reason', 'string', "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
      (o) => o.reason ?? ''),
    col('Object', 'string', 'The object that this event is about.', eventObject),
    wide('Subobject', 'string', 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.',
      (o) => o.involvedObject?.fieldPath ?? ''),
    wide('Source', 'string', 'The component reporting this event.', eventSource),
    col('Message', 'string', 'A human-readable description of the status of this operation.', (o) => String(o.message ?? '').trim()),
    wide('First Seen', 'string', 'The time at which the event was first recorded.', eventFirstSeen),
    wide('Count', 'string', 'The number of times this event has occurred.', eventCount),
    col('Name', 'string', NAME_DOC, (o) => o.metadata?.name ?? '', { priority: 1, format: 'name' }),
  ],
};

// Keyed by registry groupResource(): `core/pods`, `apps/deployments`.
const TABLES: Record<string, TableSpec> = {
  'core/pods': POD_TABLE,
  'core/services': SERVICE_TABLE,
  'core/endpoints': ENDPOINTS_TABLE,
  'core/configmaps': CONFIGMAP_TABLE,
  'core/secrets': SECRET_TABLE,
  'core/serviceaccounts': SERVICEACCOUNT_TABLE,
  'core/nodes': NODE_TABLE,
  'core/namespaces': NAMESPACE_TABLE,
  'core/events': EVENT_TABLE,
  'apps/deployments': DEPLOYMENT_TABLE,
  'apps/replicasets': REPLICASET_TABLE,
  'apps/statefulsets': STATEFULSET_TABLE,
  'apps/daemonsets': DAEMONSET_TABLE,
  'batch/jobs': JOB_TABLE,
  'discovery.k8s.io/endpointslices': ENDPOINTSLICE_TABLE,
  'coordination.k8s.io/leases': LEASE_TABLE,
};

/** The columns for a type (by registry groupResource), or the apiserver's default Name / Created At table. */
export function tableSpecFor(groupResource: string): TableSpec {
  return TABLES[groupResource] ?? DEFAULT_TABLE;
}
