// Core: kube-apiserver's write semantics, one module per verb (create, update, patch, delete, deletecollection),
// run by the store inside its transaction over a WriteStore that commits one event per change. What a type does
// differently is its strategy (core/strategies/); a request through a view (core/views/) has its body converted to
// the store's terms and its answer back, here, so the front door neither parses nor serializes either.

import { checkPatchOptions, checkWriteOptions, isApplyPatch } from '../apply/apply-body';
import { managerOrUserAgent } from '../apply/manager-name';
import { strategyFor } from '../strategies';
import { viewFor } from '../views/view';
import { strategyEnv } from './strategy-env';
import { create } from './create';
import { update } from './update';
import { patch } from './patch';
import { deleteOne } from './delete';
import { deleteCollection } from './delete-collection';
import type { WriteContext, WriteEnv, WriteRequest, WriteResponse, WriteStore } from './types';

export type { DeletePage, DeleteQuery, EventType, WriteAttribution, WriteEnv, WriteRequest, WriteResponse, WriteStore } from './types';

export function executeWrite(store: WriteStore, env: WriteEnv, req: WriteRequest): WriteResponse {
  if (req.verb === 'create' || req.verb === 'update') checkWriteOptions(req.verb === 'create' ? 'CreateOptions' : 'UpdateOptions', req.fieldManager);
  if (req.verb === 'patch') checkPatchOptions(isApplyPatch(req.patchType), req.fieldManager, req.force);
  const view = viewFor(env.type, req.view);
  const resolved = { ...env, strategy: strategyFor(env.type), manager: managerOrUserAgent(req.fieldManager, req.userAgent), view };
  const ctx: WriteContext = { ...resolved, strategyEnv: strategyEnv(store, resolved) };
  const res = dispatch(store, ctx, req);
  return view ? { ...res, body: view.fromStorage(res.body) } : res;
}

function dispatch(store: WriteStore, ctx: WriteContext, req: WriteRequest): WriteResponse {
  switch (req.verb) {
    case 'create':
      return create(store, ctx, req);
    case 'update':
      return update(store, ctx, req);
    case 'patch':
      return patch(store, ctx, req);
    case 'delete':
      return deleteOne(store, ctx, req);
    case 'deletecollection':
      return deleteCollection(store, ctx, req);
  }
}
