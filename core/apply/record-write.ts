// Core (server-side apply): the field manager's context for one write — the schema the merge walks (a built-in's
// compiled kind, a custom type's structural schema at the request's version, or "deduced"), and the managedFields
// entry every non-apply write records (recordWrite, called by create and update once the object is known).

import { kindNode } from '../schema/compile';
import type { KubeObject } from '../object-meta';
import { apiVersionOf, lookupType, type ResourceType } from '../registry';
import { recordUpdate, type FieldManagerContext, type Subresource } from './field-manager';
import { DEDUCED } from './schema-view';
import { customApplyNode } from './custom-schema';

/** What the field manager needs of a write: its type, time, manager, and the apiVersion the request speaks. */
export interface ManagedFieldsEnv {
  type: ResourceType;
  now: number;
  manager: string;
  /** The request's apiVersion when not the store's (a CRD's served version): managedFields record it. */
  view?: string;
}

// A kind without a compiled schema is merged "deduced" (SMD's schema-less mode: maps granular, lists
// atomic). A custom type is merged with its CRD version's structural schema (./custom-schema.ts), at
// the request's version: managedFields record it, and the CRD's other versions keep their sets.
export function fieldManagerContext(env: ManagedFieldsEnv, subresource: string): FieldManagerContext {
  const type = requestType(env);
  const custom = type.custom;
  const node = custom ? customApplyNode(custom.schema) : kindNode(type.group, type.version, type.kind) ?? DEDUCED;
  const ctx: FieldManagerContext = {
    node, group: type.group, version: type.version, kind: type.kind, subresource: subresource as Subresource,
    hasStatus: type.subresources.includes('status'), now: env.now,
  };
  if (custom) {
    const path = custom.scale?.specReplicasPath;
    if (path) ctx.scaleReplicasPath = path.slice(1).split('.');
    ctx.convertible = (apiVersion) => {
      const slash = apiVersion.indexOf('/');
      return apiVersion.slice(0, slash) === type.group && !!lookupType(type.group, apiVersion.slice(slash + 1), type.resource)?.custom;
    };
  }
  return ctx;
}

// The store runs with a custom type's storage version; the request may speak another of the CRD's versions.
function requestType(env: ManagedFieldsEnv): ResourceType {
  const { type, view } = env;
  if (!type.custom || !view || view === apiVersionOf(type)) return type;
  return lookupType(type.group, view.slice(view.indexOf('/') + 1), type.resource) ?? type;
}

/** Sets `next.metadata.managedFields` for a create (`live` undefined), update or patch by env.manager. */
export function recordWrite(env: ManagedFieldsEnv, live: KubeObject | undefined, next: KubeObject, subresource: string): void {
  recordUpdate(fieldManagerContext(env, subresource), live, next, env.manager);
}
