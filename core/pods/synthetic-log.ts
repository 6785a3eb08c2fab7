// Core: pods/log. kube-apiserver validates the options and the container (pkg/registry/core/pod/rest/log.go,
// strategy.go LogLocation / validateContainer) and streams what the pod's kubelet reads from the container
// runtime (pkg/kubelet/kubelet_pods.go validateContainerLogStatus, GetContainerLogs). The simulated kubelets have
// no runtime, so the log is synthetic: a few lines derived from the pod's status alone — the container started
// (with its image and command), became ready, was restarted, exited — each at the time the status records. The
// same status always gives the same log, so `kubectl logs` is deterministic and `--previous`, `--since`,
// `--tail`, `--timestamps` and `--limit-bytes` select from it as from a real one.

import { badRequest, invalid, StatusError, type StatusCause } from '../status';
import { parseQueryBool } from '../query-bool';

export interface PodLogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: number;
  sinceTime?: number; // ms
  tailLines?: number;
  limitBytes?: number;
}

export interface LogLine {
  time: number; // ms since the epoch
  text: string;
}

type View = any; // pods are schemaless JSON here

// strconv.ParseInt(s, 10, 64) as the query-parameter conversion calls it (Convert_Slice_string_To_Pointer_int64).
function parseInt64(name: string, value: string): number {
  if (!/^[+-]?\d+$/.test(value)) throw new StatusError(badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`));
  const n = Number(value);
  if (!Number.isSafeInteger(n) || Math.abs(n) > 2 ** 63) {
    throw new StatusError(badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: value out of range`));
  }
  void name;
  return n;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** The query parameters of GET pods/<name>/log, decoded and validated as kube does (ValidatePodLogOptions). */
export function parsePodLogOptions(q: URLSearchParams, podName: string): PodLogOptions {
  const opts: PodLogOptions = {
    container: q.get('container') ?? '',
    follow: parseQueryBool(q.get('follow')),
    previous: parseQueryBool(q.get('previous')),
    timestamps: parseQueryBool(q.get('timestamps')),
  };
  const int = (name: string) => (q.has(name) ? parseInt64(name, q.get(name)!) : undefined);
  opts.sinceSeconds = int('sinceSeconds');
  opts.tailLines = int('tailLines');
  opts.limitBytes = int('limitBytes');
  const sinceTime = q.get('sinceTime');
  if (sinceTime !== null && sinceTime !== '') {
    const t = RFC3339.test(sinceTime) ? Date.parse(sinceTime) : NaN;
    if (Number.isNaN(t)) throw new StatusError(badRequest(`parsing time ${JSON.stringify(sinceTime)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(sinceTime)} as "2006"`));
    opts.sinceTime = t;
  }
  const causes: StatusCause[] = [];
  if (opts.tailLines !== undefined && opts.tailLines < 0) {
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${opts.tailLines}: must be greater than or equal to 0`, field: 'tailLines' });
  }
  if (opts.limitBytes !== undefined && opts.limitBytes < 1) {
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${opts.limitBytes}: must be greater than 0`, field: 'limitBytes' });
  }
  if (opts.sinceSeconds !== undefined && opts.sinceTime !== undefined) {
    causes.push({ reason: 'FieldValueForbidden', message: 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified', field: '' });
  } else if (opts.sinceSeconds !== undefined && opts.sinceSeconds < 1) {
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${opts.sinceSeconds}: must be greater than 0`, field: 'sinceSeconds' });
  }
  if (causes.length) throw new StatusError(invalid('', 'PodLogOptions', podName, causes));
  return opts;
}

/** Every container of the pod spec: init, regular, ephemeral (podutil.VisitContainers order). */
function containerNames(pod: View): string[] {
  const spec = pod?.spec ?? {};
  const names = (list: unknown) => (Array.isArray(list) ? list.map((c: View) => String(c?.name ?? '')) : []);
  return [...names(spec.initContainers), ...names(spec.containers), ...names(spec.ephemeralContainers)];
}

/**
 * strategy.go validateContainer: the container asked for (or the pod's only container), or kube's BadRequest.
 * Go prints a []string as `[a b]`.
 */
export function logContainer(pod: View, container: string, name: string): string {
  if (!container) {
    const main = Array.isArray(pod?.spec?.containers) ? pod.spec.containers : [];
    if (main.length === 1) return String(main[0]?.name ?? '');
    if (main.length === 0) throw new StatusError(badRequest(`a container name must be specified for pod ${name}`));
    throw new StatusError(badRequest(`a container name must be specified for pod ${name}, choose one of: [${containerNames(pod).join(' ')}]`));
  }
  if (!containerNames(pod).includes(container)) throw new StatusError(badRequest(`container ${container} is not valid for pod ${name}`));
  return container;
}

function containerSpec(pod: View, name: string): View {
  const spec = pod?.spec ?? {};
  for (const list of [spec.initContainers, spec.containers, spec.ephemeralContainers]) {
    if (!Array.isArray(list)) continue;
    const c = list.find((x: View) => x?.name === name);
    if (c) return c;
  }
  return {};
}

function containerStatus(pod: View, name: string): View | undefined {
  const st = pod?.status ?? {};
  for (const list of [st.containerStatuses, st.initContainerStatuses, st.ephemeralContainerStatuses]) {
    if (!Array.isArray(list)) continue;
    const c = list.find((x: View) => x?.name === name);
    if (c) return c;
  }
  return undefined;
}

const time = (v: unknown): number | undefined => {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
};

function describeCommand(c: View): string | undefined {
  const words = [...(Array.isArray(c.command) ? c.command : []), ...(Array.isArray(c.args) ? c.args : [])].map(String);
  if (!words.length) return undefined;
  const joined = words.join(' ');
  return joined.length > 200 ? `${joined.slice(0, 200)}...` : joined;
}

/** The lines one run of a container logged: started (image, command), ready, exited. */
function runLines(pod: View, name: string, run: { startedAt?: number; finishedAt?: number; exitCode?: unknown; reason?: unknown }, readyAt?: number): LogLine[] {
  const c = containerSpec(pod, name);
  const out: LogLine[] = [];
  if (run.startedAt !== undefined) {
    out.push({ time: run.startedAt, text: `edgeplane simulated runtime: container ${JSON.stringify(name)} started from image ${JSON.stringify(String(c.image ?? ''))} on node ${JSON.stringify(String(pod?.spec?.nodeName ?? ''))}` });
    const command = describeCommand(c);
    if (command) out.push({ time: run.startedAt, text: `edgeplane simulated runtime: running ${command}` });
    const ports = Array.isArray(c.ports) ? c.ports.map((p: View) => `${p?.containerPort}/${p?.protocol ?? 'TCP'}`).filter((p: string) => !p.startsWith('undefined')) : [];
    if (ports.length) out.push({ time: run.startedAt, text: `edgeplane simulated runtime: listening on ${ports.join(', ')}` });
  }
  if (readyAt !== undefined && (run.startedAt === undefined || readyAt >= run.startedAt) && (run.finishedAt === undefined || readyAt <= run.finishedAt)) {
    out.push({ time: readyAt, text: c.readinessProbe ? 'edgeplane simulated runtime: readiness probe succeeded' : 'edgeplane simulated runtime: ready' });
  }
  if (run.finishedAt !== undefined) {
    const code = typeof run.exitCode === 'number' ? run.exitCode : 0;
    const reason = typeof run.reason === 'string' && run.reason ? ` (${run.reason})` : '';
    out.push({ time: run.finishedAt, text: `edgeplane simulated runtime: container ${JSON.stringify(name)} exited with code ${code}${reason}` });
  }
  return out;
}

function readyTime(pod: View): number | undefined {
  const conds = Array.isArray(pod?.status?.conditions) ? pod.status.conditions : [];
  const ready = conds.find((x: View) => x?.type === 'ContainersReady' && x?.status === 'True');
  return ready ? time(ready.lastTransitionTime) : undefined;
}

/**
 * The simulated kubelet's answer (validateContainerLogStatus): the container's log lines, or the error text its
 * kubelet answers with 400 (which kube-apiserver relays as BadRequest).
 */
export function containerLog(pod: View, name: string, previous: boolean): LogLine[] | { error: string } {
  const podName = String(pod?.metadata?.name ?? '');
  const where = `container ${JSON.stringify(name)} in pod ${JSON.stringify(podName)}`;
  const st = containerStatus(pod, name);
  if (!st) return { error: `${where} is not available` };
  const last = st.lastState?.terminated;
  const state = st.state ?? {};
  const run = (t: View) => ({ startedAt: time(t?.startedAt), finishedAt: time(t?.finishedAt), exitCode: t?.exitCode, reason: t?.reason });
  if (previous) {
    if (!last || !last.containerID) return { error: `previous terminated container ${JSON.stringify(name)} in pod ${JSON.stringify(podName)} not found` };
    return runLines(pod, name, run(last));
  }
  if (state.running) return runLines(pod, name, { startedAt: time(state.running.startedAt) }, st.ready ? readyTime(pod) : undefined);
  if (state.terminated) {
    if (!state.terminated.containerID) {
      if (last?.containerID) return runLines(pod, name, run(last));
      return { error: `${where} is terminated` };
    }
    return runLines(pod, name, run(state.terminated), readyTime(pod));
  }
  if (last) {
    if (!last.containerID) return { error: `${where} is terminated` };
    return runLines(pod, name, run(last));
  }
  if (state.waiting) {
    const reason = String(state.waiting.reason ?? '');
    if (reason === 'ErrImagePull') return { error: `${where} is waiting to start: image can't be pulled` };
    if (reason === 'ImagePullBackOff') return { error: `${where} is waiting to start: trying and failing to pull image` };
    return { error: `${where} is waiting to start: ${reason}` };
  }
  return { error: `${where} is waiting to start - no logs yet` };
}

/** Go's time.RFC3339Nano: fractional seconds without trailing zeros. */
export function rfc3339Nano(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2024-01-01T00:00:00.120Z
  return iso.replace(/\.(\d{3})Z$/, (_, f: string) => (f === '000' ? 'Z' : `.${f.replace(/0+$/, '')}Z`));
}

/** The lines the options select, rendered as the kubelet writes them (`<RFC3339Nano> <text>` with timestamps). */
export function renderLog(lines: readonly LogLine[], opts: PodLogOptions, now: number): string {
  let selected = [...lines].sort((a, b) => a.time - b.time);
  const since = opts.sinceTime ?? (opts.sinceSeconds !== undefined ? now - opts.sinceSeconds * 1000 : undefined);
  if (since !== undefined) selected = selected.filter((l) => l.time >= since);
  if (opts.tailLines !== undefined) selected = opts.tailLines === 0 ? [] : selected.slice(-opts.tailLines);
  let text = selected.map((l) => `${opts.timestamps ? `${rfc3339Nano(l.time)} ` : ''}${l.text}\n`).join('');
  if (opts.limitBytes !== undefined) text = truncateBytes(text, opts.limitBytes);
  return text;
}

/** The first `limit` bytes of `text` in UTF-8 (a character cut in two is dropped, as a byte reader's text would be). */
export function truncateBytes(text: string, limit: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= limit) return text;
  return new TextDecoder().decode(bytes.subarray(0, limit)).replace(/\uFFFD$/, '');
}

/** Whether a container's log can still grow: it is running, or has not started yet. */
export function containerActive(pod: View, name: string): boolean {
  if (pod?.metadata?.deletionTimestamp) return false;
  const st = containerStatus(pod, name);
  const phase = pod?.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  return !st?.state?.terminated;
}
