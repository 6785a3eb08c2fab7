// Core: a webhook's AdmissionReview answer checked as kube checks it (apiserver/pkg/admission/plugin/webhook/
// request/admissionreview.go VerifyAdmissionResponse) and its refusal turned into the client's Status
// (webhook/errors/statuserror.go ToStatusErr, NewDryRunUnsupportedErr; util/webhook/error.go ErrCallingWebhook).

import { badRequest, internalError, type Status, type StatusDetails } from '../../status';

export interface AdmissionResponse {
  allowed: boolean;
  /** The decoded JSON patch (mutating webhooks only). */
  patch?: unknown;
  result?: Partial<Status>;
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The response, or the reason it is not acceptable (kube's wording). */
export function verifyAdmissionResponse(uid: string, mutating: boolean, review: unknown): AdmissionResponse | { error: string } {
  if (!isObj(review)) return { error: 'webhook response was absent' };
  const r = review.response;
  if (!isObj(r)) return { error: 'webhook response was absent' };
  if (r.uid !== uid) return { error: `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(typeof r.uid === 'string' ? r.uid : '')}` };
  if (review.apiVersion !== 'admission.k8s.io/v1' || review.kind !== 'AdmissionReview') {
    const [g, v] = typeof review.apiVersion === 'string' && review.apiVersion.includes('/') ? review.apiVersion.split('/', 2) : ['', String(review.apiVersion ?? '')];
    return { error: `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${g ? `${g}/` : ''}${v}, Kind=${String(review.kind ?? '')}` };
  }
  const hasPatch = typeof r.patch === 'string' && r.patch.length > 0;
  const hasPatchType = r.patchType !== undefined && r.patchType !== null;
  let patch: unknown;
  if (mutating) {
    if (hasPatch && !hasPatchType) return { error: 'webhook returned response.patch but not response.patchType' };
    if (!hasPatch && hasPatchType) return { error: 'webhook returned response.patchType but not response.patch' };
    if (hasPatchType && r.patchType !== 'JSONPatch') return { error: `unsupported patch type ${JSON.stringify(String(r.patchType))}` };
    if (hasPatch) {
      try {
        patch = JSON.parse(atob(r.patch as string));
      } catch (e) {
        return { error: `received undecodable patch in webhook response: ${(e as Error).message}` };
      }
    }
  } else {
    if (hasPatch) return { error: 'validating webhook may not return response.patch' };
    if (hasPatchType) return { error: 'validating webhook may not return response.patchType' };
  }
  const warnings = Array.isArray(r.warnings) ? r.warnings.filter((w): w is string => typeof w === 'string') : [];
  const auditAnnotations: Record<string, string> = {};
  if (isObj(r.auditAnnotations)) for (const [k, v] of Object.entries(r.auditAnnotations)) if (typeof v === 'string') auditAnnotations[k] = v;
  return { allowed: r.allowed === true, patch, result: isObj(r.status) ? (r.status as Partial<Status>) : undefined, warnings, auditAnnotations };
}

/** ToStatusErr: a refusal as the client gets it, at least a 400, with the webhook named in the message. */
export function deniedStatus(webhookName: string, result: Partial<Status> | undefined): Status {
  const deniedBy = `admission webhook ${JSON.stringify(webhookName)} denied the request`;
  const r = result ?? {};
  const code = typeof r.code === 'number' && r.code >= 400 && r.code <= 599 ? r.code : 400;
  let message: string;
  if (typeof r.message === 'string' && r.message) message = `${deniedBy}: ${r.message}`;
  else if (typeof r.reason === 'string' && r.reason) message = `${deniedBy}: ${r.reason}`;
  else message = `${deniedBy} without explanation`;
  const status: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code };
  if (typeof r.reason === 'string' && r.reason) status.reason = r.reason;
  if (isObj(r.details)) status.details = r.details as StatusDetails;
  return status;
}

/** ErrCallingWebhook's text. */
export function callingWebhookError(webhookName: string, reason: string): string {
  return `failed calling webhook ${JSON.stringify(webhookName)}: ${reason}`;
}

/** What a call failure under failurePolicy Fail answers: 500 with ErrCallingWebhook's text. */
export function callingWebhookStatus(webhookName: string, reason: string): Status {
  return internalError(callingWebhookError(webhookName, reason));
}

/** NewDryRunUnsupportedErr. */
export function dryRunUnsupported(webhookName: string): Status {
  return badRequest(`admission webhook ${JSON.stringify(webhookName)} does not support dry run`);
}
