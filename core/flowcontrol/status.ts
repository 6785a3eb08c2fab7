// Core: what kube-apiserver's flow-control configuration consumer writes into FlowSchemas' status (kube's
// apf_controller presyncFlowSchemaStatus): one `Dangling` condition — True/NotFound when the priority level the
// schema names does not exist, else False/Found — with kube's messages, rewritten only when its status, reason or
// message differs. And which stored objects kube's configuration producer deletes (ensurer RemoveUnwantedObjects):
// those still marked `apf.kubernetes.io/autoupdate-spec: "true"` whose name is no longer a bootstrap object's.
// PriorityLevelConfigurations get no status from kube (their status has conditions, but nothing writes them).

import { AUTOUPDATE_SPEC_ANNOTATION } from './bootstrap';

export const DANGLING = 'Dangling';

export interface FlowSchemaCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

interface StoredSchema {
  metadata?: { name?: string };
  spec?: { priorityLevelConfiguration?: { name?: unknown } };
  status?: { conditions?: unknown };
}

/** The Dangling condition the schema should carry, or undefined when the one it carries is already right. */
export function danglingUpdate(fs: StoredSchema, levelExists: (name: string) => boolean, now: Date): FlowSchemaCondition | undefined {
  const raw = fs.spec?.priorityLevelConfiguration?.name;
  const level = typeof raw === 'string' ? raw : '';
  const dangling = !levelExists(level);
  const want: FlowSchemaCondition = dangling
    ? { type: DANGLING, status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named "${level}" but there is no such object` }
    : { type: DANGLING, status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named "${level}" and it exists` };
  const have = conditionsOf(fs).find((c) => c.type === DANGLING);
  if (have && have.status === want.status && have.reason === want.reason && have.message === want.message) return undefined;
  return { ...want, lastTransitionTime: now.toISOString().replace(/\.\d{3}Z$/, 'Z') };
}

/**
 * The apply configuration kube's consumer sends (apf_controller toFlowSchemaApplyConfiguration): the schema's name
 * and the one condition, every field set; conditions are a map list keyed by type, so the others are kept.
 */
export function danglingApply(name: string, cond: FlowSchemaCondition): object {
  return { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name }, status: { conditions: [cond] } };
}

function conditionsOf(fs: StoredSchema): FlowSchemaCondition[] {
  const list = fs.status?.conditions;
  return Array.isArray(list) ? list.filter((c): c is FlowSchemaCondition => !!c && typeof c === 'object' && typeof (c as { type?: unknown }).type === 'string') : [];
}

/** kube's RemoveUnwantedObjects: not a bootstrap name, and the annotation parses (strconv.ParseBool) as true. */
export function unwantedBootstrapObject(obj: { metadata?: { name?: string; annotations?: Record<string, unknown> } }, bootstrapNames: ReadonlySet<string>): boolean {
  const name = obj.metadata?.name;
  if (!name || bootstrapNames.has(name)) return false;
  const value = obj.metadata?.annotations?.[AUTOUPDATE_SPEC_ANNOTATION];
  return typeof value === 'string' && ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value);
}
