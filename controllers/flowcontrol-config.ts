// Controllers: what kube-apiserver itself keeps in the API Priority and Fairness objects — the configuration
// consumer's `Dangling` condition on every FlowSchema (core/flowcontrol/status.ts; kube's apf_controller), and the
// configuration producer's periodic ensure (kube's priority-and-fairness-config-producer post-start hook: every
// minute the mandatory objects get their spec back, missing suggested ones are created, auto-updated suggested
// ones follow the bootstrap spec, and objects still marked auto-update whose name left the bootstrap set are
// deleted). The stores already run the same ensure once at start (core/bootstrap.ts); this keeps it true after.
// Writes as system:apiserver, as kube's loopback client does; the condition by server-side apply to the status, as
// field manager api-priority-and-fairness-config-consumer-v1 with force (kube's apf_controller apply).
//
// Reactions are bounded: a FlowSchema event queues that schema; a PriorityLevelConfiguration add or delete queues
// the schemas naming it (an index by level name), so an event costs O(schemas naming it). A schema's status is
// written at most 6 times a minute (kube's shouldDelayUpdate), so a writer fighting it cannot make this spin.

import type { KubeObject } from '../client/types';
import { isAlreadyExists, isConflict, isNotFound, type Api, type ResourceRef } from './api-client';
import type { Clock } from './clock';
import type { SharedInformer } from './informers';
import { logSyncError, runWorker, WorkQueue } from './workqueue';
import {
  MANDATORY_FLOW_SCHEMAS, MANDATORY_NAMES, MANDATORY_PRIORITY_LEVELS, reconcileFlowControl, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS,
  type FlowSchema, type PriorityLevelConfiguration,
} from '../core/flowcontrol/bootstrap';
import { danglingApply, danglingUpdate, unwantedBootstrapObject } from '../core/flowcontrol/status';

export const COMPONENT = 'api-priority-and-fairness-config-consumer-v1';
export const FLOW_SCHEMAS: ResourceRef = { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'flowschemas', namespaced: false };
export const PRIORITY_LEVELS: ResourceRef = { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', resource: 'prioritylevelconfigurations', namespaced: false };
/** kube's producer re-ensures the bootstrap configuration once a minute. */
export const ENSURE_PERIOD_MS = 60_000;
export const ENSURE_KEY = '\u0000ensure';
const STATUS_UPDATES_PER_MINUTE = 6;

const FS_BOOTSTRAP = [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS];
const PL_BOOTSTRAP = [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS];
const FS_NAMES = new Set(FS_BOOTSTRAP.map((o) => o.metadata.name));
const PL_NAMES = new Set(PL_BOOTSTRAP.map((o) => o.metadata.name));

const levelOf = (fs: KubeObject): string => {
  const n = (fs as { spec?: { priorityLevelConfiguration?: { name?: unknown } } }).spec?.priorityLevelConfiguration?.name;
  return typeof n === 'string' ? n : '';
};

export class FlowControlConfigController {
  readonly queue: WorkQueue;
  private readonly byLevel = new Map<string, Set<string>>(); // level name → schemas naming it
  private readonly statusWrites = new Map<string, number[]>(); // schema → times of its last status writes
  private ensureTimer: unknown;
  private stopped = false;

  constructor(private readonly api: Api, private readonly schemas: SharedInformer, private readonly levels: SharedInformer, private readonly clock: Clock) {
    this.queue = new WorkQueue(clock);
    schemas.addHandlers({
      add: (o) => this.schemaChanged(undefined, o),
      update: (o, old) => this.schemaChanged(old, o),
      delete: (o) => {
        this.schemaChanged(o, undefined);
        if (FS_NAMES.has(o.metadata.name!)) this.queue.add(ENSURE_KEY);
      },
    });
    const levelChanged = (o: KubeObject) => {
      for (const fs of this.byLevel.get(o.metadata.name!) ?? []) this.queue.add(fs);
    };
    levels.addHandlers({
      add: levelChanged,
      delete: (o) => {
        levelChanged(o);
        if (PL_NAMES.has(o.metadata.name!)) this.queue.add(ENSURE_KEY);
      },
    });
  }

  run(workers = 1): Promise<void>[] {
    this.queue.add(ENSURE_KEY);
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError(COMPONENT) }));
  }

  stop(): void {
    this.stopped = true;
    if (this.ensureTimer !== undefined) this.clock.clearTimeout(this.ensureTimer);
  }

  private schemaChanged(old: KubeObject | undefined, cur: KubeObject | undefined): void {
    const name = (cur ?? old)!.metadata.name!;
    if (old) this.byLevel.get(levelOf(old))?.delete(name);
    if (old && this.byLevel.get(levelOf(old))?.size === 0) this.byLevel.delete(levelOf(old));
    if (cur) {
      const level = levelOf(cur);
      let set = this.byLevel.get(level);
      if (!set) this.byLevel.set(level, (set = new Set()));
      set.add(name);
      this.queue.add(name);
    } else this.statusWrites.delete(name);
  }

  async sync(key: string): Promise<void> {
    if (key === ENSURE_KEY) return this.ensure();
    const fs = this.schemas.get(key);
    if (!fs) return;
    const cond = danglingUpdate(fs, (name) => !!this.levels.get(name), new Date(this.clock.now()));
    if (!cond) return;
    const now = this.clock.now();
    const recent = (this.statusWrites.get(key) ?? []).filter((t) => now - t < 60_000);
    if (recent.length >= STATUS_UPDATES_PER_MINUTE) {
      // kube: a schema written 6 times in the last minute waits 30–75 s (another writer is fighting this one).
      this.queue.addAfter(key, 30_000 + Math.floor(Math.random() * 45_000));
      return;
    }
    recent.push(now);
    this.statusWrites.set(key, recent);
    try {
      // kube's apf_controller applies the one condition to the status (ApplyStatus, force) as its field manager, so
      // managedFields show it owning conditions[type=Dangling] and other writers' conditions stay theirs.
      await this.api.patch(FLOW_SCHEMAS, '', key, 'apply', danglingApply(key, cond), 'status', { fieldManager: COMPONENT, force: true });
    } catch (e) {
      if (isNotFound(e)) return; // deleted meanwhile: its delete event comes
      throw e;
    }
  }

  /** One pass of kube's producer over both kinds; conflicts are left to the next pass. */
  private async ensure(): Promise<void> {
    if (this.stopped) return;
    if (this.ensureTimer !== undefined) this.clock.clearTimeout(this.ensureTimer);
    this.ensureTimer = this.clock.setTimeout(() => {
      this.ensureTimer = undefined;
      if (!this.stopped) this.queue.add(ENSURE_KEY);
    }, ENSURE_PERIOD_MS);
    await this.ensureKind(PRIORITY_LEVELS, this.levels, PL_BOOTSTRAP, MANDATORY_NAMES.priorityLevels, PL_NAMES);
    await this.ensureKind(FLOW_SCHEMAS, this.schemas, FS_BOOTSTRAP, MANDATORY_NAMES.flowSchemas, FS_NAMES);
  }

  private async ensureKind<T extends FlowSchema | PriorityLevelConfiguration>(
    ref: ResourceRef, informer: SharedInformer, seeds: readonly T[], mandatory: ReadonlySet<string>, names: ReadonlySet<string>,
  ): Promise<void> {
    for (const seed of seeds) {
      const name = seed.metadata.name;
      const result = reconcileFlowControl(informer.get(name), seed, mandatory.has(name));
      try {
        if (result.op === 'create') await this.api.create(ref, '', result.object as unknown as KubeObject);
        else if (result.op === 'update') await this.api.update(ref, result.object as unknown as KubeObject);
      } catch (e) {
        if (!isAlreadyExists(e) && !isConflict(e) && !isNotFound(e)) throw e; // the informer lagged: the next pass sees it
      }
    }
    for (const obj of informer.list()) {
      if (!unwantedBootstrapObject(obj as Parameters<typeof unwantedBootstrapObject>[0], names)) continue;
      try {
        await this.api.delete(ref, '', obj.metadata.name!, { preconditions: { resourceVersion: obj.metadata.resourceVersion } });
      } catch (e) {
        if (!isConflict(e) && !isNotFound(e)) throw e;
      }
    }
  }
}
