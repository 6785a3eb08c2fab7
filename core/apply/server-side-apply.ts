// Core (server-side apply): the apply verb itself (apiserver handlers/patch.go applyPatcher): parse the
// configuration, merge it into the live object with ownership (./field-manager.ts), decode the result as a POST
// or PUT body is, and say what to write — a create when nothing is stored, else an update of the stored object.
// The write path (core/writes/patch.ts) commits it, so defaulting, validation, no-op detection and storage are
// shared with every other write.

import type { KubeObject } from '../object-meta';
import { badRequest, conflict, notFound, StatusError, type Status } from '../status';
import { apiVersionOf } from '../registry';
import type { FieldValidation } from '../validation/known-fields';
import { applyConfig } from './field-manager';
import { parseApplyBody } from './apply-body';
import { fieldManagerContext, type ManagedFieldsEnv } from './record-write';

export interface ApplyEnv extends ManagedFieldsEnv {
  fieldValidation?: FieldValidation;
  warnings?: string[];
  /** The merged object decoded as a written body is (the type's strategy). */
  decode(obj: KubeObject): KubeObject;
}

export interface ApplyRequest {
  name: string;
  subresource: string;
  body: string;
  force?: boolean;
  /** Why the object may not be created (RBAC, namespace lifecycle): an apply that would create it fails so. */
  createRefused?: Status;
}

/** What an apply writes: managedFields are set; the write path commits it without recording them again. */
export type ApplyPlan = { verb: 'create'; object: KubeObject } | { verb: 'update'; current: KubeObject; object: KubeObject };

/** PATCH with application/apply-patch+yaml on `current` (undefined when nothing is stored under the name). */
export function serverSideApply(current: KubeObject | undefined, env: ApplyEnv, req: ApplyRequest): ApplyPlan {
  const { type } = env;
  const ctx = fieldManagerContext(env, req.subresource);
  const body = parseApplyBody(req.body, env.fieldValidation ?? 'Warn', env.warnings);
  if (!current && req.subresource) throw new StatusError(notFound(type, req.name));
  if (!current && req.createRefused) throw new StatusError(req.createRefused);
  const apiVersion = apiVersionOf(ctx);
  // /scale applies a Scale: its spec.replicas is the parent's, owned with subresource "scale".
  let config = body as KubeObject;
  if (req.subresource === 'scale') {
    if (body.apiVersion !== 'autoscaling/v1' || body.kind !== 'Scale') {
      throw new StatusError(badRequest(`invalid object type: ${String(body.apiVersion ?? '')}, Kind=${String(body.kind ?? '')}`));
    }
    const meta = (body.metadata ?? {}) as { name?: string; namespace?: string };
    const metadata: KubeObject['metadata'] = {};
    if (meta.name !== undefined) metadata.name = meta.name;
    if (meta.namespace !== undefined) metadata.namespace = meta.namespace;
    const replicas = (body.spec as { replicas?: unknown } | undefined)?.replicas;
    config = { apiVersion, kind: type.kind, metadata };
    if (replicas !== undefined) setPath(config, ctx.scaleReplicasPath ?? ['spec', 'replicas'], replicas);
  }
  const uid = (config.metadata as { uid?: string } | undefined)?.uid;
  if (!current && uid) {
    throw new StatusError(conflict(type, req.name, `uid mismatch: the provided object specified uid ${uid}, and no existing object was found`));
  }
  // The stored object is in the storage version; the merge sees it in the request's (only apiVersion differs).
  const live: KubeObject = current ? { ...current, apiVersion } : { apiVersion, kind: type.kind, metadata: {} };
  const { object } = applyConfig(ctx, live, config, env.manager, req.force === true);
  object.metadata ??= {};
  object.metadata.name ??= req.name;
  object.apiVersion = apiVersionOf(type);
  const decoded = env.decode(object);
  decoded.metadata ??= {};
  if (current) return { verb: 'update', current, object: decoded };
  if (decoded.metadata.name !== req.name) {
    throw new StatusError(badRequest(`the name of the object (${decoded.metadata.name}) does not match the name on the URL (${req.name})`));
  }
  return { verb: 'create', object: decoded };
}

function setPath(obj: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let cur = obj;
  for (const part of path.slice(0, -1)) {
    const next = (cur[part] ??= {}) as Record<string, unknown>;
    cur = next;
  }
  cur[path[path.length - 1]] = value;
}
