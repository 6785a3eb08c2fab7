// Core: the AdmissionReview v1 `request` a webhook receives and an admission policy's CEL sees as `request`
// (apiserver/pkg/admission/plugin/webhook/request/admissionreview.go CreateV1AdmissionReview): the invocation's
// kind and resource (an equivalent one's under matchPolicy Equivalent) and the request's own as requestKind and
// requestResource, the user, both objects and the options. The uid is injected (core takes no randomness).

import type { KubeObject } from '../../object-meta';
import { gvrOf, kindOf, type RequestAttributes } from './attributes';
import type { Invocation } from './matcher';
import type { GroupVersionKind, GroupVersionResource } from './rules';

export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind: GroupVersionKind;
  requestResource: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: string;
  userInfo: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  object: KubeObject | null;
  oldObject: KubeObject | null;
  dryRun: boolean;
  options: Record<string, unknown> | null;
}

export function admissionRequest(uid: string, a: RequestAttributes, invocation?: Invocation): AdmissionRequest {
  const requestKind = kindOf(a.type, a.subresource);
  const requestResource = gvrOf(a.type);
  const u = a.user;
  const userInfo: AdmissionRequest['userInfo'] = {};
  // authentication/v1 UserInfo: every field omitempty.
  if (u.username) userInfo.username = u.username;
  if (u.uid) userInfo.uid = u.uid;
  if (u.groups?.length) userInfo.groups = [...u.groups];
  if (u.extra && Object.keys(u.extra).length) userInfo.extra = u.extra;
  const req: AdmissionRequest = {
    uid,
    kind: invocation?.kind ?? requestKind,
    resource: invocation?.resource ?? requestResource,
    requestKind,
    requestResource,
    operation: a.operation,
    userInfo,
    object: a.object,
    oldObject: a.oldObject,
    dryRun: a.dryRun,
    options: a.options ?? null,
  };
  if (a.subresource) {
    req.subResource = a.subresource;
    req.requestSubResource = a.subresource;
  }
  if (a.name) req.name = a.name;
  if (a.namespace) req.namespace = a.namespace;
  return orderKeys(req);
}

// Field order of the Go struct, so the JSON a webhook reads looks like kube's.
const ORDER = ['uid', 'kind', 'resource', 'subResource', 'requestKind', 'requestResource', 'requestSubResource', 'name', 'namespace', 'operation', 'userInfo', 'object', 'oldObject', 'dryRun', 'options'];

function orderKeys(r: AdmissionRequest): AdmissionRequest {
  const out: Record<string, unknown> = {};
  for (const k of ORDER) if (k in r) out[k] = (r as unknown as Record<string, unknown>)[k];
  return out as unknown as AdmissionRequest;
}

/** The whole AdmissionReview v1 document sent to a webhook. */
export function admissionReview(request: AdmissionRequest): { kind: 'AdmissionReview'; apiVersion: 'admission.k8s.io/v1'; request: AdmissionRequest } {
  return { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', request };
}
