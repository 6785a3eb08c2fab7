// Front door: dispatches a resource request (verb, type, namespace, name) to the canonical store,
// after the checks kube-apiserver makes before storage: scope, allowed verbs, namespace admission.

import type { Context } from 'hono';
import type { ResourceRequest } from '../../core/request-info';
import { groupResource, isVersionView, lookupGroupResource, subresourceInfo, type ResourceType, type Subresource } from '../../core/registry';
import { badRequest, forbidden, invalid, methodNotAllowed, StatusError, statusResponse, unknownResource, type Result, type Status } from '../../core/status';
import { toTableIsolated } from '../../core/tables/isolated';
import { logRenderError } from '../../core/list/render';
import type { StoreReply } from '../../contract/rpc';
import type { WriteRequest } from '../../core/writes';
import { parseSelectors } from '../../core/list/options';
import { optionalQueryBool } from '../../core/query-bool';
import type { AppEnv } from '../env';
import { storeFor } from '../stores';
import { readBodyBytes } from '../body';
import { decodeBody } from '../request-body';
import { parseFieldValidation } from '../../core/validation/known-fields';
import { listFormat, negotiateOutput } from '../negotiation';
import { admitCreate, deleteNamespace } from './namespace-lifecycle';
import { admissionInputs } from '../admission-inputs';
import { writeCharged } from '../quota-charge';
import { afterWrite as afterAdmissionRead } from '../admission-cache';
import { watch } from './watch';
import { review, tokenRequest } from './reviews';
import { escalationGrant, RBAC_GROUP } from './escalation';
import { allAuthorizers, authorizerFor } from '../authz';
import { resourceAttributes } from '../../core/rbac/request-attributes';
import { forbiddenReason } from '../../core/rbac/authorize';
import { isApplyPatch } from '../../core/apply/apply-body';
import { clientKey, mayChooseReplica, replicaFor, servableByReplica } from '../replicas';
import { forwardedCrdRevision } from '../../contract/crd-types';
import { afterCrdWrite, resumeCrdCleanup } from './crd-lifecycle';
import { CRD_GROUP_RESOURCE } from '../../core/crd/crd-object';
import { bodyToStorage, needsConversion, replyFromStorage } from '../../core/crd/versions';
import { bodyToCoreEvent, EVENTS_V1, patchToCoreEvent, replyToEventsV1 } from '../../core/events-view';
import { validateEventsV1Create } from '../../core/validation/events-v1';
import { evictionDeleteOptions, EVICTION_SUCCESS } from '../../core/pods/eviction';
import { deleteCollectionResponse } from './delete-collection';
import { CONNECT_SUBRESOURCES, podConnect, podLog, proxy } from './pod-subresources';
import { componentStatuses } from './component-statuses';
import { bodyToStorage as viewBodyToStorage, patchThroughView, replyFromStorage as viewReplyFromStorage, storageOf, VIEW_API_VERSION } from './version-view';

type Ctx = Context<AppEnv>;

export async function handleResource(c: Ctx, info: ResourceRequest): Promise<Response> {
  const type = info.type;
  if (!type || (info.namespace && !type.namespaced)) throw new StatusError(unknownResource());
  // Only a proxy subresource takes a path after it (pods/<name>/proxy/<path>); anything else is no route.
  if (info.subpath && info.subresource !== 'proxy') throw new StatusError(unknownResource());
  const url = new URL(c.req.url);
  // Subresources answer only their own verbs (pods/log: get; pods/binding: create; ...), 405 otherwise.
  if (info.subresource && type.subresources.includes(info.subresource as Subresource)) {
    if (!subresourceInfo(type, info.subresource as Subresource).verbs.includes(info.verb)) throw new StatusError(methodNotAllowed());
    if (info.subresource === 'log') return podLog(c, info, url);
    if (CONNECT_SUBRESOURCES.has(info.subresource)) return podConnect(c, info, url);
    if (info.subresource === 'proxy') return proxy(c, type, info);
  }
  // /api/v1/pods (no namespace) serves list and watch across namespaces, nothing else.
  const allNamespaces = type.namespaced && !info.namespace;
  // PUT and PATCH have routes on items only (a collection path answers 405, as kube's router does).
  const itemVerbOnCollection = (info.verb === 'update' || info.verb === 'patch') && !info.name;
  if (!type.verbs.includes(info.verb) || itemVerbOnCollection || (allNamespaces && info.verb !== 'list' && info.verb !== 'watch')) {
    throw new StatusError(methodNotAllowed());
  }
  // namespaces/finalize serves PUT alone (kube installs only Update for it).
  if (info.subresource === 'finalize' && info.verb !== 'update') throw new StatusError(methodNotAllowed());
  // 406 before anything is done: a write must not happen when its answer cannot be sent.
  if (info.verb !== 'watch') negotiateOutput(c.req.header('accept'));
  // ComponentStatus: answered from the components' health, never stored (componentstatus/rest.go).
  if (type.group === '' && type.kind === 'ComponentStatus') return deprecated(type, await componentStatuses(c, type, info, url));
  // autoscaling/v1 HorizontalPodAutoscaler: the v2 store, bodies and replies converted (core/autoscaling/hpa-v1.ts).
  if (isVersionView(type)) {
    const storage = storageOf(type);
    if (info.verb === 'watch') return watch(c, storage, info, url, VIEW_API_VERSION);
    const res = await dispatch(c, storage, info, url, false, type);
    return new Response(viewReplyFromStorage(await res.text()), { status: res.status, headers: res.headers });
  }
  // events.k8s.io/v1 Events: the core/v1 events store, bodies and replies converted (core/events-view.ts).
  if (type.viewOf) {
    const storage = lookupGroupResource(type.viewOf)!;
    if (info.verb === 'watch') return watch(c, storage, info, url, EVENTS_V1);
    const res = await dispatch(c, storage, info, url, true);
    return new Response(replyToEventsV1(await res.text()), { status: res.status, headers: res.headers });
  }
  // A CRD version other than the storage one: apiVersion rewritten both ways (core/crd/versions.ts).
  if (needsConversion(type) && info.verb !== 'watch') {
    const res = await dispatch(c, type, info, url);
    const text = replyFromStorage(type, await res.text());
    return deprecated(type, new Response(text, { status: res.status, headers: res.headers }));
  }
  const res = await dispatch(c, type, info, url);
  return info.verb === 'watch' ? res : deprecated(type, res);
}

/**
 * A deprecated API's Warning on every answer: a CRD version's (apiextensions customresource_handler.go), or a
 * built-in kind's (the apiserver's deprecation filter, e.g. `v1 ComponentStatus is deprecated in v1.19+`).
 */
function deprecated(type: ResourceType, res: Response): Response {
  const warning = type.custom?.deprecationWarning ?? type.deprecated;
  if (!warning) return res;
  const out = new Response(res.body, res);
  out.headers.append('warning', `299 - ${JSON.stringify(warning)}`);
  return out;
}

/** `view`: the version view the request named (its bodies are converted to `type`, the storage type). */
async function dispatch(c: Ctx, type: ResourceType, info: ResourceRequest, url: URL, eventsView = false, view?: ResourceType): Promise<Response> {
  switch (info.verb) {
    case 'get':
      return get(c, type, info);
    case 'list': {
      const req = {
        namespace: info.namespace, query: url.search, format: listFormat(c.req.header('accept'), url.searchParams.get('includeObject') ?? undefined),
        crdRevision: type.custom ? forwardedCrdRevision() : undefined,
      };
      const user = c.get('user');
      const replica = servableByReplica(url.searchParams) ? replicaFor(c.env, c.get('settings'), type, c.req.raw, clientKey(user.username, c.req.raw), mayChooseReplica(user)) : undefined;
      if (replica) return replica.stub.list(groupResource(type), replica.name, req);
      return storeFor(c.env, type).list(groupResource(type), req);
    }
    case 'watch':
      return watch(c, type, info, url);
    default:
      return write(c, type, info, url, eventsView, view);
  }
}

async function get(c: Ctx, type: ResourceType, info: ResourceRequest): Promise<Response> {
  const result = await storeFor(c.env, type).get(groupResource(type), {
    namespace: info.namespace, name: info.name, subresource: info.subresource, crdRevision: type.custom ? forwardedCrdRevision() : undefined,
  });
  if (!result.ok || info.subresource) return reply(result);
  const url = new URL(c.req.url);
  const format = listFormat(c.req.header('accept'), url.searchParams.get('includeObject') ?? undefined);
  if (format.as !== 'Table') return reply(result);
  const obj = JSON.parse(result.value.body);
  const table = toTableIsolated(type, [obj], {
    includeObject: format.includeObject, now: Date.now(), listMeta: { resourceVersion: obj.metadata?.resourceVersion },
  }, logRenderError);
  return json(200, JSON.stringify(table));
}

async function write(c: Ctx, type: ResourceType, info: ResourceRequest, url: URL, eventsView = false, view?: ResourceType): Promise<Response> {
  const bytes = await readBodyBytes(c.req.raw);
  const contentType = c.req.header('content-type') ?? '';
  // A patch body is read by its patch type; a DELETE's options only when it sent any (rest.go).
  const raw = info.verb === 'patch' || (bytes.length === 0 && (info.verb === 'delete' || info.verb === 'deletecollection'));
  let body = raw ? new TextDecoder().decode(bytes) : bodyToStorage(type, decodeBody(contentType, bytes, bodyKind(view ?? type, info)));
  const writesObject = info.verb === 'create' || info.verb === 'update';
  if (view && writesObject) body = viewBodyToStorage(body);
  else if (view && info.verb === 'patch' && isApplyPatch(contentType)) body = viewBodyToStorage(body, true);
  if (eventsView && info.verb === 'patch') body = patchToCoreEvent(body);
  else if (eventsView && !raw) body = bodyToCoreEvent(body);
  if (eventsView && info.verb === 'create') strictEventCreate(body, info.namespace);
  const q = url.searchParams;
  const dryRun = q.getAll('dryRun').includes('All');
  const fieldValidation = parseFieldValidation(q.get('fieldValidation'));
  if (!fieldValidation) {
    throw new StatusError(badRequest(`fieldValidation must be one of "Ignore", "Warn" or "Strict", got "${q.get('fieldValidation')}"`));
  }
  const { namespace, name, subresource } = info;
  // POST namespaces/<ns>/bindings (LegacyBindingREST): pods/binding of the pod the Binding names.
  if (info.verb === 'create' && type.group === '' && type.kind === 'Binding') return bindCollection(c, namespace, body, dryRun);
  if (info.verb === 'create' && !type.stored) return review(c, type, body, fieldValidation, namespace);
  if (info.verb === 'create' && type.custom?.terminating) {
    // apiextensions customresource_handler.go serveResource.
    throw new StatusError({ ...methodNotAllowed(), message: 'create not allowed while custom resource definition is terminating' });
  }
  if (info.verb === 'create' && subresource === 'token' && type.subresources.includes('token')) return tokenRequest(c, info, body);
  let req: WriteRequest;
  let namespaceRevision: number | undefined;
  let evicting = false;
  switch (info.verb) {
    case 'create':
      // pods/binding (core/pods/binding.ts): an atomic update of the pod, authorized as `create pods/binding`.
      if (subresource === 'binding' && name && type.group === '' && type.kind === 'Pod') {
        req = { verb: 'update', namespace, name, subresource, body };
        break;
      }
      // pods/eviction (core/pods/eviction.ts): a DELETE with the Eviction's options, authorized as `create pods/eviction`.
      if (subresource === 'eviction' && name && type.group === '' && type.kind === 'Pod') {
        req = { verb: 'delete', namespace, name, body: evictionDeleteOptions(body, name), query: {} };
        evicting = true;
        break;
      }
      if (name || subresource) throw new StatusError(methodNotAllowed());
      namespaceRevision = await admitCreate(c.env, type, namespace, body);
      req = { verb: 'create', namespace, body };
      break;
    case 'update':
      req = { verb: 'update', namespace, name, subresource, body };
      break;
    case 'patch':
      if (view) {
        // A patch is applied to the object as the view's version shows it (version-view.ts).
        const admission = await admissionInputs(c.env, c.get('settings'), { type, namespace, body, user: c.get('user'), operation: 'update' });
        const options = { dryRun, fieldValidation, admission };
        const viaView = await patchThroughView(c, view, info, body, ({ body: next }) => storeFor(c.env, type).write(groupResource(type), {
          verb: 'update', namespace, name, subresource, body: next, fieldManager: q.get('fieldManager') ?? undefined, userAgent: c.req.header('user-agent') ?? undefined,
        }, options));
        if (viaView) return reply(viaView);
      }
      req = { verb: 'patch', namespace, name, subresource, patchType: c.req.header('content-type') ?? '', body };
      break;
    case 'delete':
      if (subresource) throw new StatusError(methodNotAllowed());
      if (type.kind === 'Namespace' && !dryRun) return reply(await deleteNamespace(c.env, c.get('settings'), name, body));
      req = { verb: 'delete', namespace, name, body, query: deleteQuery(q) };
      break;
    default:
      req = {
        verb: 'deletecollection', namespace, body, query: deleteQuery(q),
        selectors: parseSelectors({ labelSelector: q.get('labelSelector') ?? '', fieldSelector: q.get('fieldSelector') ?? '' }, type),
      };
  }
  if (req.verb === 'create' || req.verb === 'update' || req.verb === 'patch') {
    // The field manager of the write (managedFields): kube takes it from here, else from the User-Agent.
    req.fieldManager = q.get('fieldManager') ?? undefined;
    req.userAgent = c.req.header('user-agent') ?? undefined;
    const force = optionalQueryBool(q, 'force');
    if (force !== undefined) req.force = force;
    // managedFields record the version asked for, not the storage version the store works in.
    if (needsConversion(type)) req.requestVersion = type.version;
  }
  if (req.verb === 'patch' && !subresource && isApplyPatch(req.patchType)) {
    // An apply that creates needs `create` too (apiserver handlers/update.go withAuthorization) and a
    // live namespace; the store, which alone knows whether the object exists, refuses the create with this.
    const user = c.get('user');
    const attrs = resourceAttributes({ ...info, verb: 'create' });
    const shard = authorizerFor(c.env, c.get('settings'), user);
    if (!(await shard.stub.check(shard.name, user, attrs))) {
      req.createRefused = forbidden({ group: type.group, resource: type.resource }, name, forbiddenReason(user, attrs));
    } else {
      // Namespace lifecycle admission, which applies to creates only.
      // Its namespace revision fences the create against a concurrent namespace deletion, as for a POST.
      namespaceRevision = await admitCreate(c.env, type, namespace, JSON.stringify({ metadata: { name } })).catch((e) => {
        if (!(e instanceof StatusError)) throw e;
        req.createRefused = e.status;
        return undefined;
      });
    }
  }
  const isRbac = type.group === RBAC_GROUP;
  const escalation = isRbac ? await escalationGrant(c, type, info, req) : undefined;
  // The admission chain runs in the store on the object it writes; what its plugins consult is read here.
  const admission = req.verb === 'create' || req.verb === 'update' || req.verb === 'patch'
    ? await admissionInputs(c.env, c.get('settings'), {
      type, namespace, body, user: c.get('user'), subresource,
      operation: req.verb === 'create' || (req.verb === 'patch' && !subresource && isApplyPatch(req.patchType)) ? 'create' : 'update',
    })
    : undefined;
  const options = { dryRun, fieldValidation, escalation, namespaceRevision, admission, crdRevision: type.custom ? forwardedCrdRevision() : undefined };
  if (req.verb === 'deletecollection') {
    return deleteCollectionResponse(c.env, type, req, options, async (last) => void await settle(c, type, info.verb, dryRun, last));
  }
  const result = await settle(c, type, info.verb, dryRun, await writeCharged(c.env, type, req, options));
  if (evicting && result.ok) return json(201, JSON.stringify(EVICTION_SUCCESS));
  return reply(result);
}

/**
 * POST namespaces/<ns>/bindings: kube's LegacyBindingREST takes the pod's name from the Binding's metadata and
 * binds it exactly as pods/<name>/binding does (core/pods/binding.ts), answering 201 with a Success Status.
 */
async function bindCollection(c: Ctx, namespace: string, body: string, dryRun: boolean): Promise<Response> {
  let name = '';
  try {
    const parsed = JSON.parse(body) as { metadata?: { name?: unknown } };
    if (typeof parsed?.metadata?.name === 'string') name = parsed.metadata.name;
  } catch {
    // the pods store words the decoding error
  }
  // NamespaceKeyFunc refuses an empty name before the pod is read.
  if (!name && body.trim().startsWith('{')) throw new StatusError(badRequest('Name parameter required.'));
  const pods = lookupGroupResource('core/pods')!;
  return reply(await storeFor(c.env, pods).write(groupResource(pods), { verb: 'update', namespace, name, subresource: 'binding', body }, { dryRun }));
}

/** What follows a write: CRD registry sync and cleanup, and read-your-writes for RBAC. */
async function settle(c: Ctx, type: ResourceType, verb: string, dryRun: boolean, result: Result<StoreReply>): Promise<Result<StoreReply>> {
  if (!dryRun) afterAdmissionRead(groupResource(type));
  if (groupResource(type) === CRD_GROUP_RESOURCE && !dryRun) result = await afterCrdWrite(c.env, verb, result);
  if (type.custom?.terminating && result.ok && !dryRun) await resumeCrdCleanup(c.env, type.custom.crdName);
  // Read-your-writes for RBAC: the next request must be decided with this change in force.
  if (type.group === RBAC_GROUP && result.ok && result.value.revision) {
    const revision = result.value.revision;
    await Promise.all(allAuthorizers(c.env, c.get('settings')).map((a) => a.stub.catchUp(a.name, groupResource(type), revision)));
  }
  return result;
}

/** events.k8s.io/v1 creates: kube's strict event validation (core/validation/events-v1.ts), before the store's own. */
function strictEventCreate(body: string, namespace: string): void {
  let obj: unknown;
  try {
    obj = JSON.parse(body);
  } catch {
    return; // the store words the decoding error
  }
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return;
  // The namespace comes from the URL, as the store will set it (a different one in the body is the store's 400).
  const meta = (obj as { metadata?: Record<string, unknown> }).metadata;
  const event = { ...(obj as Record<string, unknown>), metadata: { ...(meta && typeof meta === 'object' ? meta : {}), namespace } };
  const causes = validateEventsV1Create(event);
  const name = ((obj as { metadata?: { name?: unknown } }).metadata?.name as string | undefined) ?? '';
  if (causes.length) throw new StatusError(invalid('events.k8s.io', 'Event', typeof name === 'string' ? name : '', causes));
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

function deleteQuery(q: URLSearchParams) {
  return {
    gracePeriodSeconds: q.get('gracePeriodSeconds') ?? undefined,
    propagationPolicy: q.get('propagationPolicy') ?? undefined,
    orphanDependents: optionalQueryBool(q, 'orphanDependents'),
  };
}

export function reply(result: Result<StoreReply> | { ok: false; status: Status }): Response {
  if (!result.ok) return statusResponse(result.status);
  const res = json(result.value.code, result.value.body);
  // apiserver warning headers: `299 - "<text>"`, one per finding.
  for (const w of result.value.warnings ?? []) res.headers.append('warning', `299 - ${JSON.stringify(w)}`);
  return res;
}

function json(code: number, body: string): Response {
  return new Response(body, { status: code, headers: { 'content-type': 'application/json' } });
}
