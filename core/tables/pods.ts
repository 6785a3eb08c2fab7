// Core: the pods table (printPod): READY, STATUS and RESTARTS summarised from the container statuses the way
// kubectl shows them, plus the Completed row condition for finished pods.

import { AGE, col, humanDuration, NAME, parseTime, wide, type TableSpec, type View } from './columns';

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
  // The first condition of each type decides, as Go's inner loop breaks there; a map keeps it linear.
  const firstStatus = new Map<unknown, unknown>();
  for (const c of (pod.status?.conditions ?? []) as View[]) if (!firstStatus.has(c.type)) firstStatus.set(c.type, c.status);
  const passed = gates.filter((g) => firstStatus.get(g.conditionType) === 'True').length;
  return `${passed}/${gates.length}`;
}

export const POD_TABLE: TableSpec = {
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
