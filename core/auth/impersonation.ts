// Core: user impersonation as kube-apiserver's WithImpersonation filter does it (apiserver
// pkg/endpoints/filters/impersonation.go, 1.32): the Impersonate-User, Impersonate-Group, Impersonate-Uid and
// Impersonate-Extra-<key> headers become a list of things to impersonate, each authorized separately as the
// `impersonate` verb (users, groups, serviceaccounts in their namespace, authentication.k8s.io uids and
// userextras/<key>), and, once all are allowed, the user the rest of the request runs as.
//
// One difference the platform forces: the Fetch API joins repeated header lines with ", ", so two
// Impersonate-Group lines arrive as one value and are split on ", " again. A single group name that itself holds
// ", " is read as two groups, each of which must then be allowed: the split can refuse, never allow more.

import type { RequestAttributes } from '../rbac/rules';
import type { UserInfo } from '../rbac/authorize';
import { goQuote, isDNS1123Label, isDNS1123Subdomain } from '../validation/names';

export const IMPERSONATE_USER = 'impersonate-user';
export const IMPERSONATE_GROUP = 'impersonate-group';
export const IMPERSONATE_UID = 'impersonate-uid';
export const IMPERSONATE_EXTRA_PREFIX = 'impersonate-extra-';

const AUTHENTICATION_GROUP = 'authentication.k8s.io';
const AUTHENTICATION_VERSION = `${AUTHENTICATION_GROUP}/v1`;
const SA_PREFIX = 'system:serviceaccount:';
const ALL_AUTHENTICATED = 'system:authenticated';
const ALL_UNAUTHENTICATED = 'system:unauthenticated';
const ANONYMOUS = 'system:anonymous';

/**
 * The most values one request may ask to impersonate (groups and extra values together). kube has no such limit;
 * each value is an authorization decision, so without one a request's headers could make the authorizer decide
 * (and cache) tens of thousands of decisions. Past it the request is refused before anything is decided.
 */
export const MAX_IMPERSONATION_VALUES = 100;

/** v1.ObjectReference as buildImpersonationRequests fills it (FieldPath carries an extra's key). */
export interface ImpersonationRequest {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  namespace: string;
  name: string;
  apiVersion: string;
  fieldPath: string;
}

export type ParsedImpersonation =
  | { kind: 'none' }
  | { kind: 'requests'; requests: ImpersonationRequest[]; groupsSpecified: boolean }
  | { kind: 'error'; message: string; tooMany?: boolean }; // kube answers its errors 500 (responsewriters.InternalError)

const ref = (kind: ImpersonationRequest['kind'], name: string, namespace = '', apiVersion = '', fieldPath = ''): ImpersonationRequest =>
  ({ kind, namespace, name, apiVersion, fieldPath });

/** Whether any header asks for impersonation (the fast path: one scan of the header names). */
export function hasImpersonationHeaders(headers: Headers): boolean {
  for (const [name] of headers) if (name.startsWith('impersonate-')) return true;
  return false;
}

// The values of a header that may come several times (see the header comment).
const values = (v: string): string[] => v.split(', ');

/** buildImpersonationRequests: user (or ServiceAccount), groups, extras, uid; anything but a user needs a user. */
export function parseImpersonation(headers: Headers): ParsedImpersonation {
  if (!hasImpersonationHeaders(headers)) return { kind: 'none' };
  const requests: ImpersonationRequest[] = [];
  const user = headers.get(IMPERSONATE_USER) ?? '';
  if (user) {
    const sa = splitServiceAccount(user);
    requests.push(sa ? ref('ServiceAccount', sa.name, sa.namespace) : ref('User', user));
  }
  let others = 0;
  const group = headers.get(IMPERSONATE_GROUP);
  // headers[ImpersonateGroupHeader]: present even with an empty value, which is a group named "".
  const groupsSpecified = group !== null;
  if (group !== null) {
    for (const g of values(group)) {
      requests.push(ref('Group', g));
      others++;
    }
  }
  for (const [name, value] of headers) {
    if (!name.startsWith(IMPERSONATE_EXTRA_PREFIX)) continue;
    const key = unescapeExtraKey(name.slice(IMPERSONATE_EXTRA_PREFIX.length));
    for (const v of values(value)) {
      requests.push(ref('UserExtra', v, '', AUTHENTICATION_VERSION, key));
      others++;
    }
  }
  const uid = headers.get(IMPERSONATE_UID) ?? '';
  if (uid) {
    requests.push(ref('UID', uid, '', AUTHENTICATION_VERSION));
    others++;
  }
  if (others > MAX_IMPERSONATION_VALUES) {
    return { kind: 'error', tooMany: true, message: `requested ${others} groups, extra values and uids to impersonate; at most ${MAX_IMPERSONATION_VALUES} are allowed` };
  }
  if (requests.length === 0) return { kind: 'none' }; // e.g. only an empty Impersonate-User
  if (others > 0 && !user) return { kind: 'error', message: `requested [${requests.map(goObjectReference).join(' ')}] without impersonating a user` };
  return { kind: 'requests', requests, groupsSpecified };
}

// fmt %v of a v1.ObjectReference: its seven fields in order, space-separated, in braces.
function goObjectReference(r: ImpersonationRequest): string {
  return `{${[r.kind, r.namespace, r.name, '', r.apiVersion, '', r.fieldPath].join(' ')}}`;
}

// url.PathUnescape: %XX decoded; a malformed escape keeps the key as sent.
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** serviceaccount.SplitUsername: system:serviceaccount:<namespace label>:<name subdomain>, exactly two parts. */
export function splitServiceAccount(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SA_PREFIX)) return undefined;
  const parts = username.slice(SA_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts;
  if (isDNS1123Label(namespace).length || isDNS1123Subdomain(name).length) return undefined;
  return { namespace, name };
}

/** The authorizer attributes of one impersonation request: the `impersonate` verb, made by the requester. */
export function impersonationAttributes(r: ImpersonationRequest): RequestAttributes {
  const base = { verb: 'impersonate', resourceRequest: true, subresource: '', namespace: '', path: '', name: r.name };
  switch (r.kind) {
    case 'ServiceAccount':
      return { ...base, apiGroup: '', resource: 'serviceaccounts', namespace: r.namespace };
    case 'User':
      return { ...base, apiGroup: '', resource: 'users' };
    case 'Group':
      return { ...base, apiGroup: '', resource: 'groups' };
    case 'UserExtra':
      return { ...base, apiGroup: AUTHENTICATION_GROUP, resource: 'userextras', subresource: r.fieldPath };
    case 'UID':
      return { ...base, apiGroup: AUTHENTICATION_GROUP, resource: 'uids' };
  }
}

/**
 * The user the request runs as once every request is allowed: the named user (a ServiceAccount gets its groups
 * unless groups were given), the groups asked for, system:authenticated added unless system:authenticated or
 * system:unauthenticated was asked for (system:unauthenticated for system:anonymous), the extras and the uid.
 */
export function impersonatedUser(requests: readonly ImpersonationRequest[], groupsSpecified: boolean): UserInfo {
  let username = '';
  let uid = '';
  const groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of requests) {
    switch (r.kind) {
      case 'ServiceAccount':
        username = `${SA_PREFIX}${r.namespace}:${r.name}`;
        if (!groupsSpecified) groups.push('system:serviceaccounts', `system:serviceaccounts:${r.namespace}`);
        break;
      case 'User':
        username = r.name;
        break;
      case 'Group':
        groups.push(r.name);
        break;
      case 'UserExtra':
        (extra[r.fieldPath] ??= []).push(r.name);
        break;
      case 'UID':
        uid = r.name;
        break;
    }
  }
  if (username !== ANONYMOUS) {
    if (!groups.some((g) => g === ALL_AUTHENTICATED || g === ALL_UNAUTHENTICATED)) groups.push(ALL_AUTHENTICATED);
  } else if (!groups.includes(ALL_UNAUTHENTICATED)) {
    groups.push(ALL_UNAUTHENTICATED);
  }
  const user: UserInfo = { username, uid, groups };
  if (Object.keys(extra).length) user.extra = extra;
  return user;
}

// responsewriters sanitizer: nothing that looks like HTML.
const sanitize = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** responsewriters.InternalError: a plain-text 500 naming the request URI, as kube answers a malformed impersonation. */
export function internalErrorText(requestURI: string, message: string): string {
  return `${sanitize(`Internal Server Error: ${goQuote(requestURI)}: ${message}`)}\n`;
}
