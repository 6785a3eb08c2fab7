// Front door: /metrics in Prometheus text format: this isolate's apiserver_flowcontrol_* series; per resource type the store's counters, and per
// subscribed replica its own (revision, lag, watchers, events received, deliveries, closes, 410s); per control
// loop its work queue's (client-go's workqueue_* metrics, plus the pacing that keeps a loop from starving the
// isolate).

import { Hono } from 'hono';
import type { AppEnv } from '../env';
import type { AuthorizerStats, ReplicaStats, StoreStats } from '../../contract/rpc';
import { controllerManagerStub } from '../../contract/names';
import { collectStats } from '../cluster-stats';
import { allAuthorizers } from '../authz';
import type { QueueStats } from '../../controllers/workqueue';
import { auditBuffer } from '../audit-sink';
import { flowControlMetrics } from '../flowcontrol';
import { rateLimitHoldCounts } from '../rate-limit-hold';

export const metrics = new Hono<AppEnv>();

interface Series<S> {
  name: string;
  help: string;
  type: 'gauge' | 'counter';
  value: (s: S) => number;
}

const STORE_SERIES: Series<StoreStats>[] = [
  { name: 'edgeplane_store_revision', help: 'Newest revision of the canonical store.', type: 'gauge', value: (s) => s.revision },
  { name: 'edgeplane_store_compacted_revision', help: 'Revision up to which the log is compacted.', type: 'gauge', value: (s) => s.compacted },
  { name: 'edgeplane_store_objects', help: 'Objects currently stored.', type: 'gauge', value: (s) => s.objects },
  { name: 'edgeplane_store_writes_total', help: 'Writes that changed something.', type: 'counter', value: (s) => s.writes },
  { name: 'edgeplane_store_subscriptions', help: 'Replicas subscribed to the store.', type: 'gauge', value: (s) => s.subscriptions },
  { name: 'edgeplane_store_replica_messages_total', help: 'Pushes sent to replicas.', type: 'counter', value: (s) => s.messagesSent },
  { name: 'edgeplane_watch_window_events', help: 'Events held in the store\'s in-memory watch window.', type: 'gauge', value: (s) => s.windowEvents },
  { name: 'edgeplane_watchers', help: 'Watchers served by the store itself.', type: 'gauge', value: (s) => s.watchers },
  { name: 'edgeplane_watch_deliveries_total', help: 'Frames the store delivered to its watchers.', type: 'counter', value: (s) => s.deliveries },
  { name: 'edgeplane_watch_slow_closed_total', help: 'Store watchers closed because their buffer overflowed.', type: 'counter', value: (s) => s.slowClosed },
  { name: 'edgeplane_watch_expired_total', help: 'Store watches answered 410 Expired.', type: 'counter', value: (s) => s.expired },
  { name: 'edgeplane_render_errors_total', help: 'Objects the store could not render for a list or a watcher (Table rows that fell back to null cells, watchers ended with an ERROR).', type: 'counter', value: (s) => s.renderErrors },
  { name: 'edgeplane_watch_sink_errors_total', help: 'Store watchers whose transport threw while sending.', type: 'counter', value: (s) => s.sinkErrors },
  { name: 'edgeplane_watch_socket_stalled_total', help: 'Store WebSocket watchers closed for being sent WATCH_SOCKET_BUDGET_BYTES without a sign of reading.', type: 'counter', value: (s) => s.socketStalls },
  { name: 'edgeplane_watch_quota_refused_total', help: 'Watches the store answered 429 because a bound of the watch quota (MAX_WATCHERS, MAX_WATCHES_PER_USER, MAX_WATCHES_PER_NAMESPACE) was full.', type: 'counter', value: (s) => s.quotaRefused },
  { name: 'edgeplane_store_watchers_at_wake', help: 'WebSocket watchers still connected when the store\'s object last started (non-zero: it woke from hibernation with them).', type: 'gauge', value: (s) => s.watchersAtWake },
];

const REPLICA_SERIES: Series<ReplicaStats>[] = [
  { name: 'edgeplane_replica_revision', help: 'Newest revision the replica has applied.', type: 'gauge', value: (s) => s.revision },
  { name: 'edgeplane_replica_lag', help: 'Revisions the replica is behind its store.', type: 'gauge', value: (s) => s.lag },
  { name: 'edgeplane_replica_watchers', help: 'Watchers served by the replica.', type: 'gauge', value: (s) => s.watchers },
  { name: 'edgeplane_replica_events_received_total', help: 'Events the replica received from its store.', type: 'counter', value: (s) => s.eventsReceived },
  { name: 'edgeplane_replica_deliveries_total', help: 'Frames the replica delivered to its watchers.', type: 'counter', value: (s) => s.deliveries },
  { name: 'edgeplane_replica_slow_closed_total', help: 'Replica watchers closed because their buffer overflowed.', type: 'counter', value: (s) => s.slowClosed },
  { name: 'edgeplane_replica_expired_total', help: 'Replica watches answered 410 Expired.', type: 'counter', value: (s) => s.expired },
  { name: 'edgeplane_replica_render_errors_total', help: 'Objects the replica could not render for a list or a watcher.', type: 'counter', value: (s) => s.renderErrors },
  { name: 'edgeplane_replica_watch_sink_errors_total', help: 'Replica watchers whose transport threw while sending.', type: 'counter', value: (s) => s.sinkErrors },
  { name: 'edgeplane_replica_watch_socket_stalled_total', help: 'Replica WebSocket watchers closed for being sent WATCH_SOCKET_BUDGET_BYTES without a sign of reading.', type: 'counter', value: (s) => s.socketStalls },
  { name: 'edgeplane_replica_watch_quota_refused_total', help: 'Watches the replica answered 429 because a bound of the watch quota was full.', type: 'counter', value: (s) => s.quotaRefused },
  { name: 'edgeplane_replica_watchers_at_wake', help: 'WebSocket watchers still connected when the replica\'s object last started (non-zero: it woke from hibernation with them).', type: 'gauge', value: (s) => s.watchersAtWake },
];

const AUTHORIZER_SERIES: Series<AuthorizerStats>[] = [
  { name: 'edgeplane_rbac_malformed_objects', help: 'Stored RBAC objects ignored by the authorizer because they are malformed.', type: 'gauge', value: (s) => s.malformedObjects },
  { name: 'edgeplane_authz_decision_cache_entries', help: 'Cached authorization decisions.', type: 'gauge', value: (s) => s.decisionCacheEntries },
  { name: 'edgeplane_authz_decision_cache_bytes', help: 'Bytes charged to the decision cache (keys included).', type: 'gauge', value: (s) => s.decisionCacheBytes },
  { name: 'edgeplane_authz_rate_limit_buckets', help: 'Per-user rate-limit buckets held.', type: 'gauge', value: (s) => s.rateLimitBuckets },
];

const QUEUE_SERIES: Series<QueueStats>[] = [
  { name: 'edgeplane_workqueue_depth', help: 'Keys ready to be handed to a worker.', type: 'gauge', value: (s) => s.depth },
  { name: 'edgeplane_workqueue_delayed', help: 'Keys waiting on a timer (requeue after, retry, hot-key backoff).', type: 'gauge', value: (s) => s.delayed },
  { name: 'edgeplane_workqueue_adds_total', help: 'Keys queued.', type: 'counter', value: (s) => s.adds },
  { name: 'edgeplane_workqueue_syncs_total', help: 'Keys handed to a worker (syncs).', type: 'counter', value: (s) => s.syncs },
  { name: 'edgeplane_workqueue_retries_total', help: 'Syncs that failed and were requeued rate-limited.', type: 'counter', value: (s) => s.failures },
  { name: 'edgeplane_workqueue_hot_delays_total', help: 'Re-adds of a key synced too often, delayed with exponential backoff.', type: 'counter', value: (s) => s.hotDelays },
  { name: 'edgeplane_workqueue_hot_keys', help: 'Keys backing off for being synced too often.', type: 'gauge', value: (s) => s.hotKeys },
  { name: 'edgeplane_workqueue_budget_waits_total', help: 'Times a worker waited for its loop\'s syncs-per-second budget.', type: 'counter', value: (s) => s.budgetWaits },
  { name: 'edgeplane_workqueue_work_duration_ms_total', help: 'Wall time keys spent with workers (the clock moves across I/O only).', type: 'counter', value: (s) => s.syncMs },
  { name: 'edgeplane_workqueue_longest_running_ms', help: 'Longest wall time one key spent with a worker.', type: 'gauge', value: (s) => s.maxSyncMs },
];

metrics.get('/metrics', async (c) => {
  const stores = await collectStats(c.env);
  const lines: string[] = [];
  const emit = <S>(series: Series<S>[], rows: { labels: string; stats: S }[]) => {
    for (const s of series) {
      lines.push(`# HELP ${s.name} ${s.help}`, `# TYPE ${s.name} ${s.type}`);
      for (const row of rows) lines.push(`${s.name}{${row.labels}} ${s.value(row.stats)}`);
    }
  };
  emit(STORE_SERIES, stores.map((s) => ({ labels: `resource="${s.gr}"`, stats: s.stats })));
  emit(REPLICA_SERIES, stores.flatMap((s) => s.replicas.map((r) => ({ labels: `resource="${s.gr}",replica="${r.name}"`, stats: r }))));
  const shards = await Promise.all(allAuthorizers(c.env, c.get('settings')).map(async (a) => ({ labels: `shard="${a.name}"`, stats: await a.stub.stats(a.name) })));
  emit(AUTHORIZER_SERIES, shards);
  const stub = controllerManagerStub(c.env);
  if (c.get('settings').controllers && stub) {
    const manager = await stub.stats().catch(() => undefined);
    emit(QUEUE_SERIES, Object.entries(manager?.loops ?? {}).map(([name, stats]) => ({ labels: `name="${name}"`, stats })));
  }
  // This isolate's audit log (worker/audit-sink.ts): what was written, and what was dropped rather than wait.
  const audit = auditBuffer();
  // Requests past their user's rate limit, waiting (worker/rate-limit-hold.ts).
  const held = rateLimitHoldCounts();
  for (const [name, help, type, value] of [
    ['edgeplane_rate_limit_waiting_requests', 'Requests of this isolate waiting for their rate-limit token or holding back their 429.', 'gauge', held.waiting],
    ['edgeplane_rate_limit_waits_total', 'Requests of this isolate that waited for their rate-limit token or held back their 429.', 'counter', held.waited],
    ['edgeplane_rate_limit_wait_full_total', 'Requests answered at once because APF_MAX_WAITING requests were already waiting.', 'counter', held.full],
    ['edgeplane_audit_events_total', 'Audit events written by this isolate.', 'counter', audit.counters.events],
    ['edgeplane_audit_events_dropped_total', 'Audit events dropped because the queue (AUDIT_QUEUE_BYTES) was full.', 'counter', audit.counters.dropped],
    ['edgeplane_audit_events_truncated_total', 'Audit events written without their request/response objects (AUDIT_MAX_EVENT_BYTES).', 'counter', audit.counters.truncated],
    ['edgeplane_audit_events_too_large_total', 'Audit events dropped because even truncated they exceeded AUDIT_MAX_EVENT_BYTES.', 'counter', audit.counters.tooLarge],
    ['edgeplane_audit_buffer_bytes', 'Bytes of audit events kept for GET /_edgeplane/audit.', 'gauge', audit.keptBytes],
  ] as const) lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name} ${value}`);
  // This isolate's API Priority and Fairness (worker/flowcontrol.ts), under kube's names.
  lines.push(...flowControlMetrics(c.get('settings')));
  return c.text(`${lines.join('\n')}\n`, 200, { 'content-type': 'text/plain; version=0.0.4' });
});
