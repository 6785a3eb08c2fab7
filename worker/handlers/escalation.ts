// Front door admission for RBAC objects: nobody creates or changes a role or binding that grants more
// than they hold (kube pkg/registry/rbac/*/policybased). The object checked is the one that would be
// stored: the body, or for a patch the current object with the patch applied.

import type { Context } from 'hono';
import type { ResourceRequest } from '../../core/request-info';
import type { ResourceType } from '../../core/registry';
import { groupResource } from '../../core/registry';
import { forbidden, StatusError } from '../../core/status';
import type { WriteRequest } from '../../core/writes';
import { applyPatch } from '../../core/patch/apply-patch';
import { decodePatchBody, patchTypeOf } from '../../core/patch/patch-body';
import { isApplyPatch, parseApplyBody } from '../../core/apply/apply-body';
import { describeRule, type PolicyRule } from '../../core/rbac/rules';
import type { RoleRef } from '../../core/rbac/authorize';
import type { AppEnv } from '../env';
import { authorizerFor } from '../authz';
import { storeFor } from '../stores';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

interface RbacCandidate {
  metadata?: { name?: string; namespace?: string };
  rules?: PolicyRule[];
  roleRef?: RoleRef;
}

export async function preventEscalation(c: Context<AppEnv>, type: ResourceType, info: ResourceRequest, req: WriteRequest): Promise<void> {
  const candidate = await candidateObject(c, type, info, req);
  if (!candidate) return; // unparseable: the store answers with the right error
  const user = c.get('user');
  const shard = authorizerFor(c.env, user);
  const missing = await shard.stub.escalation(shard.name, user, type.kind, candidate, type.namespaced ? info.namespace : '');
  if (missing.length === 0) return;
  const groups = user.groups.map((g) => JSON.stringify(g)).join(' ');
  throw new StatusError(forbidden(type, candidate.metadata?.name ?? info.name,
    `user ${JSON.stringify(user.username)} (groups=[${groups}]) is attempting to grant RBAC permissions not currently held:\n${missing.map(describeRule).join('\n')}`));
}

async function candidateObject(c: Context<AppEnv>, type: ResourceType, info: ResourceRequest, req: WriteRequest): Promise<RbacCandidate | undefined> {
  try {
    if (req.verb === 'create' || req.verb === 'update') return JSON.parse(req.body) as RbacCandidate;
    if (req.verb !== 'patch') return undefined;
    // Server-side apply: the rules and roleRef it sets are the config's (both are atomic).
    if (isApplyPatch(req.patchType)) return parseApplyBody(req.body, 'Ignore', undefined) as RbacCandidate;
    const patchType = patchTypeOf(req.patchType);
    if (!patchType) return undefined;
    const current = await storeFor(c.env, type).get(groupResource(type), { namespace: info.namespace, name: info.name, subresource: '' });
    if (!current.ok) return undefined;
    const doc = JSON.parse(current.value.body);
    const patch = decodePatchBody(patchType, req.body);
    return applyPatch(patchType, doc, patch, type.kind) as RbacCandidate;
  } catch {
    return undefined;
  }
}
