// Core: the admission chain (core/admission/chain.ts) at the points of the write path where kube-apiserver's
// handlers run it: mutating admission once the object is defaulted and its managedFields recorded (kube's create
// and update handlers record them before admitting), validating admission once the type's strategy is done, just
// before storage. A write without admission inputs (the server's own bootstrap writes, as kube's post-start hooks)
// is not admitted.

import { admitMutating, admitValidating, type AdmissionAttributes } from '../admission/chain';
import type { KubeObject } from '../object-meta';
import type { WriteContext } from './types';

/** The attributes of this write for the chain, or undefined when it is not admitted. */
export function admissionOf(ctx: WriteContext, operation: 'CREATE' | 'UPDATE', namespace: string, subresource: string, object: KubeObject, oldObject?: KubeObject): AdmissionAttributes | undefined {
  if (!ctx.admission) return undefined;
  return { operation, type: ctx.type, namespace, subresource, object, oldObject, dryRun: ctx.admission.dryRun };
}

export function mutate(ctx: WriteContext, a: AdmissionAttributes | undefined, displayName?: string): void {
  if (!a) return;
  // kube generates the name after mutating admission, whose errors name the generateName.
  a.displayName = displayName;
  admitMutating(a, ctx.admission!.inputs, { randomSuffix: ctx.randomSuffix, warnings: ctx.warnings, auditAnnotations: ctx.auditAnnotations, followUp: ctx.admission!.followUp });
  a.displayName = undefined;
}

export function validate(ctx: WriteContext, a: AdmissionAttributes | undefined): void {
  if (!a) return;
  try {
    admitValidating(a, ctx.admission!.inputs, { randomSuffix: ctx.randomSuffix, warnings: ctx.warnings, auditAnnotations: ctx.auditAnnotations, followUp: ctx.admission!.followUp });
  } catch (e) {
    // A refusal keeps the annotations made before it (PodSecurity's audit-violations), as kube's audit event does.
    if (ctx.auditAnnotations && Object.keys(ctx.auditAnnotations).length && e && typeof e === 'object') {
      Object.assign(e, { auditAnnotations: { ...ctx.auditAnnotations } });
    }
    throw e;
  }
}
