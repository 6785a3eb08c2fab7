// Front door: the steps every write handler shares: the body as the store takes it, the write's query options
// (dryRun, fieldValidation), who writes (managedFields), and the store call itself — with the escalation grant an
// RBAC write needs and what follows a write (./after-write.ts).

import type { ResourceType } from '../../core/registry';
import { groupResource } from '../../core/registry';
import type { ResourceRequest } from '../../core/request-info';
import { badRequest, StatusError, type Result } from '../../core/status';
import { optionalQueryBool } from '../../core/query-bool';
import { parseFieldValidation, type FieldValidation } from '../../core/validation/known-fields';
import type { WriteRequest } from '../../core/writes';
import type { StoreReply, WriteOptions } from '../../contract/rpc';
import { forwardedCrdRevision } from '../../contract/crd-types';
import { readBodyBytes } from '../body';
import { decodeBody } from '../request-body';
import { storeFor } from '../stores';
import { escalationGrant, RBAC_GROUP } from './escalation';
import { admissionInputs } from '../admission-inputs';
import { decodedBodyObject, rememberDecodedBody } from '../audit';
import { writeCharged } from '../quota-charge';
import { isApplyPatch } from '../../core/apply/apply-body';
import { settle } from './after-write';
import { addMutatingStage, addValidatingStage, afterWebhookConfigWrite, writeWithWebhooks } from '../admission-webhooks';
import { admissionPolicyStage } from '../admission-policy';
import { existingPodWarnings } from '../pod-security-namespace';
import { mutatingPolicyStage } from '../admission-policy-mutating';
import type { Ctx, ResourceCall } from './call';

/**
 * The body as the store takes it: a PATCH's as sent (read by its patch type), a DELETE's options only when it sent
 * any (rest.go), anything else decoded from JSON, YAML or protobuf into JSON text (415 for another media type).
 */
export async function writtenBody(c: Ctx, { type, info }: ResourceCall): Promise<string> {
  const bytes = await readBodyBytes(c.req.raw);
  const raw = info.verb === 'patch' || (bytes.length === 0 && (info.verb === 'delete' || info.verb === 'deletecollection'));
  if (raw) return new TextDecoder().decode(bytes);
  const text = decodeBody(c.req.header('content-type') ?? '', bytes, bodyKind(type, info));
  rememberDecodedBody(c.req.raw, text); // parsed once, by admission or the audit filter, whichever reads it first
  return text;
}

/** The kind a body must be, for decode errors: DeleteOptions on deletes, a Scale on /scale. */
function bodyKind(type: ResourceType, info: ResourceRequest): string {
  if (info.verb === 'delete' || info.verb === 'deletecollection') return 'DeleteOptions';
  if (info.subresource === 'scale') return 'Scale';
  if (info.subresource === 'token') return 'TokenRequest';
  if (info.subresource === 'binding') return 'Binding';
  if (info.subresource === 'eviction') return 'Eviction';
  return type.kind;
}

export interface WriteQuery {
  dryRun: boolean;
  fieldValidation: FieldValidation;
}

/** dryRun=All and fieldValidation (400 for a value kube-apiserver does not know). */
export function writeQuery(url: URL): WriteQuery {
  const q = url.searchParams;
  const fieldValidation = parseFieldValidation(q.get('fieldValidation'));
  if (!fieldValidation) {
    throw new StatusError(badRequest(`fieldValidation must be one of "Ignore", "Warn" or "Strict", got "${q.get('fieldValidation')}"`));
  }
  return { dryRun: q.getAll('dryRun').includes('All'), fieldValidation };
}

/** A create, update or patch with who writes it: kube takes the field manager from `fieldManager`, else the User-Agent. */
export function attributed<R extends Extract<WriteRequest, { verb: 'create' | 'update' | 'patch' }>>(c: Ctx, url: URL, req: R): R {
  req.fieldManager = url.searchParams.get('fieldManager') ?? undefined;
  req.userAgent = c.req.header('user-agent') ?? undefined;
  const force = optionalQueryBool(url.searchParams, 'force');
  if (force !== undefined) req.force = force;
  return req;
}

/**
 * `req` written by the type's store, answered in the request's view, with the escalation grant an RBAC write needs
 * (./escalation.ts), then settled (./after-write.ts).
 */
export async function send(c: Ctx, call: ResourceCall, req: WriteRequest, query: WriteQuery, options: Pick<WriteOptions, 'namespaceRevision'> = {}): Promise<Result<StoreReply>> {
  const { type, info } = call;
  if (call.view) req.view = call.view.apiVersion;
  // ValidatingAdmissionPolicy judges beside the validating webhooks (registered once per isolate: its bindings are stable).
  addValidatingStage(admissionPolicyStage(c.env, c.get('settings')));
  // MutatingAdmissionPolicy just before the mutating webhooks (nothing read while its API is not served).
  addMutatingStage(mutatingPolicyStage(c.env, c.get('settings')));
  const write = (r: WriteRequest, over: Pick<WriteOptions, 'dryRun'> = {}) => storeWrite(c, call, r, { ...query, ...options, ...over });
  // Admission webhooks, only when one could match (worker/admission-webhooks.ts): they see the store's dry run.
  const result = (await writeWithWebhooks(c, call, req, query.dryRun, write)) ?? (await write(req));
  // PodSecurity's evaluation of a namespace's pods at its new enforce level, which the store asked for.
  if (result.ok && result.value.podSecurityPods) {
    const warnings = await existingPodWarnings(c.env, c.get('settings'), result.value.podSecurityPods);
    delete result.value.podSecurityPods;
    if (warnings.length) result.value.warnings = [...(result.value.warnings ?? []), ...warnings];
  }
  if (result.ok && !query.dryRun) afterWebhookConfigWrite(type);
  return settle(c, type, info.verb, query.dryRun, result);
}

/** One store write, with the escalation grant an RBAC write needs and, for creates and updates, admission's inputs. */
async function storeWrite(c: Ctx, { type, info }: ResourceCall, req: WriteRequest, options: WriteQuery & Pick<WriteOptions, 'namespaceRevision' | 'dryRun'>): Promise<Result<StoreReply>> {
  const escalation = type.group === RBAC_GROUP ? await escalationGrant(c, type, info, req) : undefined;
  // The admission chain runs in the store on the object it writes; what its plugins consult is read here
  // (worker/admission-inputs.ts), and the namespace's quotas are charged before a create they limit (worker/quota-charge.ts).
  if (req.verb === 'create' || req.verb === 'update' || req.verb === 'patch') {
    const subresource = req.verb === 'create' ? undefined : req.subresource;
    const admission = await admissionInputs(c.env, c.get('settings'), {
      type, namespace: req.namespace, body: req.body, user: c.get('user'), subresource, name: req.verb === 'create' ? undefined : req.name,
      object: req.verb === 'patch' ? undefined : () => decodedBodyObject(c.req.raw, req.body),
      operation: req.verb === 'create' || (req.verb === 'patch' && !subresource && isApplyPatch(req.patchType)) ? 'create' : 'update',
    });
    const result = await writeCharged(c.env, type, req, { ...options, escalation, admission, crdRevision: crdRevision(type) });
    // Admission's audit annotations (PodSecurity's) on the request's audit event, whether it was admitted or refused.
    const annotations = result.ok ? result.value.auditAnnotations : (result as { auditAnnotations?: Record<string, string> }).auditAnnotations;
    const ev = annotations ? c.get('audit')?.event : undefined;
    if (ev) ev.annotations = { ...ev.annotations, ...annotations };
    return result;
  }
  return storeFor(c.env, type).write(groupResource(type), req, { ...options, escalation, crdRevision: crdRevision(type) });
}

/** Custom types: the CRD store revision this isolate knows, so the store serving it knows at least as much. */
export function crdRevision(type: ResourceType): number | undefined {
  return type.custom ? forwardedCrdRevision() : undefined;
}
