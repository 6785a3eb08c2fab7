// Front door: PATCH, JSON, merge, strategic merge or server-side apply. An apply may create the object, so it needs
// what a POST needs (apiserver handlers/update.go withAuthorization and namespace lifecycle admission); only the
// store knows whether the object exists, so the refusal travels with the request and the store answers with it
// when the apply would create.

import { forbidden, StatusError, type Status } from '../../core/status';
import { forbiddenReason } from '../../core/rbac/authorize';
import { isApplyPatch } from '../../core/apply/apply-body';
import type { WriteRequest } from '../../core/writes';
import { authorizerFor } from '../authz';
import { resourceAttributes } from '../../core/rbac/request-attributes';
import { admitCreate } from './namespace-lifecycle';
import { reply } from './reply';
import { attributed, send, writeQuery, writtenBody } from './write';
import type { Ctx, ResourceCall } from './call';

export async function patch(c: Ctx, call: ResourceCall): Promise<Response> {
  const body = await writtenBody(c, call);
  const query = writeQuery(call.url);
  const { namespace, name, subresource } = call.info;
  const req: Extract<WriteRequest, { verb: 'patch' }> = attributed(c, call.url, { verb: 'patch', namespace, name, subresource, patchType: c.req.header('content-type') ?? '', body });
  let namespaceRevision: number | undefined;
  if (!subresource && isApplyPatch(req.patchType)) {
    const admitted = await applyMayCreate(c, call);
    if ('refused' in admitted) req.createRefused = admitted.refused;
    else namespaceRevision = admitted.namespaceRevision;
  }
  return reply(await send(c, call, req, query, { namespaceRevision }));
}

/**
 * Whether an apply that creates may do so: `create` authorized, then the namespace admitted; the namespace's
 * revision fences the create against a concurrent namespace deletion, as for a POST.
 */
async function applyMayCreate(c: Ctx, { type, info }: ResourceCall): Promise<{ refused: Status } | { namespaceRevision: number | undefined }> {
  const user = c.get('user');
  const attrs = resourceAttributes({ ...info, verb: 'create' });
  const shard = authorizerFor(c.env, c.get('settings'), user);
  if (!(await shard.stub.check(shard.name, user, attrs))) {
    return { refused: forbidden({ group: type.group, resource: type.resource }, info.name, forbiddenReason(user, attrs)) };
  }
  try {
    // A fresh read: the store's fence refusal would come back as this apply's answer, with no second try.
    return { namespaceRevision: await admitCreate(c.env, type, info.namespace, JSON.stringify({ metadata: { name: info.name } }), true) };
  } catch (e) {
    if (!(e instanceof StatusError)) throw e;
    return { refused: e.status };
  }
}
