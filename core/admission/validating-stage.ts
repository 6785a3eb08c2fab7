// Core: the validating step of the front door's admission (after the mutating webhooks, on the final object),
// where validating webhooks run and where other validators — ValidatingAdmissionPolicy — plug in. Each stage is
// given the request and the AdmissionReview request once, and answers with a refusal, warnings and audit
// annotations; the front door runs every stage's check in parallel, as kube runs validating webhooks, and refuses
// with the first refusal in stage order. Register one with addValidatingStage (worker/admission-webhooks.ts).

import type { Status } from '../status';
import type { RequestAttributes } from './match/attributes';
import type { AdmissionRequest } from './match/review-request';

export interface ValidatingVerdict {
  /** A refusal, as the client gets it (kube's exact Status and message). */
  deny?: Status;
  /** Warning headers (`299 - "<text>"`). */
  warnings?: string[];
  /** Audit annotations, keys already prefixed as kube does (`<webhook name>/<key>`). */
  auditAnnotations?: Record<string, string>;
}

/** Extra facts a stage may need that the front door reads on its behalf. */
export interface ValidatingContext {
  /** The request's namespace object (null: it does not exist; undefined: cluster-scoped or not read). */
  namespaceObject?: Record<string, unknown> | null;
}

export interface ValidatingStage {
  /** For logs and ordering ("ValidatingAdmissionWebhook", "ValidatingAdmissionPolicy"). */
  name: string;
  /**
   * Cheap: whether anything of this stage could apply (no I/O beyond cached configuration). Asked before the store's
   * dry run, so `object` and `oldObject` are null then (and `operation` is the first the write may turn out to be):
   * answer from rules and namespaces only; true when unsure. False for every stage and webhook: the write pays nothing.
   */
  applies?(a: RequestAttributes): boolean | Promise<boolean>;
  validate(a: RequestAttributes, request: AdmissionRequest, ctx: ValidatingContext): Promise<ValidatingVerdict>;
}
