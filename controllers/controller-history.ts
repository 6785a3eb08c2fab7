// Controllers: ControllerRevisions, the template history of StatefulSets and DaemonSets
// (kubernetes pkg/controller/history/controller_history.go, statefulset getPatch/newRevision, daemonset
// constructHistory). A revision stores the owner's pod template as a patch
// {"spec":{"template":{...,"$patch":"replace"}}}; the one whose data equals the current template is the
// update revision — the latest if it already is, an older one renumbered to the next revision if the
// template went back to it, or a new one named <owner>-<hash>.

import type { KubeObject } from '../client/types';
import { isAlreadyExists, RESOURCES, type Api } from './api-client';
import { computeHash } from './deployment-util';
import { newControllerRef } from './owner-refs';

export const HISTORY_HASH_LABEL = 'controller.kubernetes.io/hash'; // ControllerRevisionHashLabel
export const CONTROLLER_REVISION_HASH = 'controller-revision-hash'; // apps.ControllerRevisionHashLabelKey

export interface TemplateOwner { spec?: { template?: unknown; revisionHistoryLimit?: number } }

/** The revision data of an owner's current template. */
export function revisionData(owner: KubeObject): { spec: { template: Record<string, unknown> } } {
  const template = structuredClone(((owner.spec as TemplateOwner['spec']) ?? {}).template ?? {}) as Record<string, unknown>;
  return { spec: { template: { ...template, $patch: 'replace' } } };
}

/** The pod template a revision records. */
export function templateOf(revision: KubeObject): { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown> } {
  const t = structuredClone(((revision as { data?: { spec?: { template?: Record<string, unknown> } } }).data?.spec?.template) ?? {});
  delete t.$patch;
  return t;
}

export const revisionNumber = (r: KubeObject): number => Number((r as { revision?: number }).revision ?? 0);

// Key order does not matter to equality: both sides went through the same JSON round trip.
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

export const sameData = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);

export function newRevision(owner: KubeObject, revision: number, collisionCount: number, extraLabels: (hash: string) => Record<string, string> = () => ({})): KubeObject {
  const data = revisionData(owner);
  const hash = computeHash(data, collisionCount || undefined);
  const templateLabels = ((data.spec.template.metadata as { labels?: Record<string, string> } | undefined)?.labels) ?? {};
  return {
    apiVersion: 'apps/v1', kind: 'ControllerRevision',
    metadata: {
      name: `${owner.metadata.name}-${hash}`, namespace: owner.metadata.namespace,
      labels: { ...templateLabels, [HISTORY_HASH_LABEL]: hash, ...extraLabels(hash) },
      ownerReferences: [newControllerRef(owner)],
    },
    data, revision,
  };
}

export const hashOf = (r: KubeObject): string => ((r.metadata.labels as Record<string, string> | undefined) ?? {})[HISTORY_HASH_LABEL] ?? '';

/**
 * Finds or makes the update revision among the owner's revisions (sorted or not); returns it and the
 * revisions as they now are, oldest first.
 */
export async function ensureUpdateRevision(api: Api, owner: KubeObject, owned: KubeObject[], collisionCount: number,
  extraLabels?: (hash: string) => Record<string, string>): Promise<{ update: KubeObject; revisions: KubeObject[] }> {
  const revisions = [...owned].sort((a, b) => revisionNumber(a) - revisionNumber(b));
  const next = (revisions.length ? revisionNumber(revisions[revisions.length - 1]) : 0) + 1;
  const data = revisionData(owner);
  const equal = revisions.filter((r) => sameData((r as { data?: unknown }).data, data));
  const latest = revisions[revisions.length - 1];
  if (equal.length && equal[equal.length - 1] === latest) return { update: latest, revisions };
  if (equal.length) {
    // The template went back to an older revision: it becomes the newest (UpdateControllerRevision).
    const old = equal[equal.length - 1];
    const updated = await api.update(RESOURCES.controllerrevisions, { ...old, revision: next } as KubeObject);
    return { update: updated, revisions: [...revisions.filter((r) => r !== old), updated] };
  }
  const fresh = newRevision(owner, next, collisionCount, extraLabels);
  try {
    const created = await api.create(RESOURCES.controllerrevisions, owner.metadata.namespace!, fresh);
    return { update: created, revisions: [...revisions, created] };
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
    // Created by an earlier sync the informer has not shown yet: use it when it records the same template.
    const existing = await api.get(RESOURCES.controllerrevisions, owner.metadata.namespace!, fresh.metadata.name!);
    if (!sameData((existing as { data?: unknown }).data, data)) throw new Error(`controllerrevision ${fresh.metadata.name} exists with another template (hash collision)`);
    return { update: existing, revisions: [...revisions.filter((r) => r.metadata.name !== existing.metadata.name), existing] };
  }
}

/** truncateHistory: deletes the oldest revisions no pod uses beyond revisionHistoryLimit (default 10). */
export async function truncateHistory(api: Api, owner: KubeObject, revisions: KubeObject[], live: Set<string>): Promise<void> {
  const limit = ((owner.spec as TemplateOwner['spec']) ?? {}).revisionHistoryLimit ?? 10;
  const history = revisions.filter((r) => !live.has(r.metadata.name!));
  const excess = history.length - limit;
  for (const r of history.slice(0, Math.max(0, excess))) {
    await api.delete(RESOURCES.controllerrevisions, r.metadata.namespace!, r.metadata.name!).catch((e) => {
      if ((e as { code?: number }).code !== 404) throw e;
    });
  }
}
