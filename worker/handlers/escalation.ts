// Front door part of escalation prevention: fetches what the requester holds (an EscalationGrant from
// their authorizer shard) and sends it with the write; the store checks the object it will actually
// write against it (core/rbac/escalation.ts explains why the check is there).

import type { Context } from 'hono';
import type { ResourceRequest } from '../../core/request-info';
import { groupResource, type ResourceType } from '../../core/registry';
import { forbidden, StatusError } from '../../core/status';
import type { WriteRequest } from '../../core/writes';
import { applyPatch } from '../../core/patch/apply-patch';
import { decodePatchBody, patchTypeOf } from '../../core/patch/patch-body';
import { isPrivileged } from '../../core/rbac/authorize';
import { guardsEscalation, RBAC_GROUP, type EscalationGrant } from '../../core/rbac/escalation';
import { isApplyPatch, parseApplyBody } from '../../core/apply/apply-body';
import type { AppEnv } from '../env';
import { authorizerFor } from '../authz';
import { storeFor } from '../stores';

export { RBAC_GROUP };

/** The grant to send with `req`, or undefined when the write needs none. Throws 403 if it cannot be had. */
export async function escalationGrant(c: Context<AppEnv>, type: ResourceType, info: ResourceRequest, req: WriteRequest): Promise<EscalationGrant | undefined> {
  if (!guardsEscalation(type) || (req.verb !== 'create' && req.verb !== 'update' && req.verb !== 'patch')) return undefined;
  const user = c.get('user');
  const namespace = type.namespaced ? info.namespace : '';
  if (isPrivileged(user)) {
    return { user: { username: user.username, groups: user.groups }, privileged: true, namespace, ownerRules: [], resolutionErrors: [] };
  }
  try {
    const roleRef = type.kind.endsWith('Binding') ? await expectedRoleRef(c, type, info, req) : undefined;
    const shard = authorizerFor(c.env, c.get('settings'), user);
    return await shard.stub.escalationGrant(shard.name, user, namespace, roleRef);
  } catch (e) {
    // Fail closed: without the requester's rules no RBAC object is written.
    console.error('escalation grant unavailable', type.kind, (e as Error)?.message);
    throw new StatusError(forbidden(type, info.name, 'the escalation check could not be made, please retry'));
  }
}

/**
 * The roleRef the written binding will have, as far as the front door can tell: the body's, or for a
 * patch the current object's after the patch. Only a hint: the store refuses the write (409) if the
 * object it writes refers to another role, so a wrong or missing guess never allows anything.
 */
async function expectedRoleRef(c: Context<AppEnv>, type: ResourceType, info: ResourceRequest, req: WriteRequest): Promise<unknown> {
  try {
    if (req.verb !== 'patch') return (JSON.parse(req.body) as { roleRef?: unknown })?.roleRef;
    // Server-side apply: roleRef is atomic, so the config's is the one written (or the current one if it sets none).
    if (isApplyPatch(req.patchType)) {
      const config = parseApplyBody(req.body, 'Ignore', undefined) as { roleRef?: unknown } | undefined;
      if (config?.roleRef !== undefined) return config.roleRef;
    }
    const current = await storeFor(c.env, type).get(groupResource(type), { namespace: info.namespace, name: info.name, subresource: '' });
    if (!current.ok) return undefined;
    const doc = JSON.parse(current.value.body) as { roleRef?: unknown };
    const patchType = patchTypeOf(req.patchType);
    if (!patchType) return doc.roleRef;
    try {
      return (applyPatch(patchType, doc, decodePatchBody(patchType, req.body), type.kind) as { roleRef?: unknown })?.roleRef;
    } catch {
      return doc.roleRef;
    }
  } catch {
    return undefined;
  }
}
