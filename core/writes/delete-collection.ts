// Core: DELETE of a collection (store.go DeleteCollection): every object matching the selectors deleted as a DELETE
// would, one page at a time when the store hands the keys over (core/list/delete-collection-page.ts); the answer is
// the List of the objects as they were.

import { apiVersionOf } from '../registry';
import type { KubeObject } from '../object-meta';
import { matchesObject } from '../list/filter';
import { checkPreconditions, parseDeleteOptions, remove, withPropagation } from './delete';
import type { DeleteCollectionRequest, WriteContext, WriteResponse, WriteStore } from './types';

export function deleteCollection(store: WriteStore, ctx: WriteContext, req: DeleteCollectionRequest): WriteResponse {
  const { type } = ctx;
  const options = parseDeleteOptions(req.body);
  const { page } = req;
  // A page names its keys; one deleted or changed since the store picked it is skipped or checked again.
  const candidates = page ? page.keys.map((k) => store.get(k)).filter((o): o is KubeObject => o !== undefined) : store.objects(req.namespace);
  const victims = [...candidates].filter((o) => matchesObject(type, o, req.selectors));
  let deleted = 0;
  const counting: WriteStore = {
    ...store,
    commit: (kind, key, object) => {
      if (kind === 'DELETED') deleted++;
      return store.commit(kind, key, object);
    },
  };
  for (const o of victims) {
    checkPreconditions(type.kind, o, options);
    // The answer lists the objects as they were (kube's DeleteCollection answers the List it deleted from).
    const copy = structuredClone(o);
    remove(counting, ctx, withPropagation(ctx, copy, options, req.query), copy);
  }
  const metadata = page ? { resourceVersion: page.resourceVersion, ...(page.continue ? { continue: page.continue } : {}) } : {};
  return { code: 200, body: { kind: `${type.kind}List`, apiVersion: apiVersionOf(type), metadata, items: victims }, held: victims.length - deleted };
}
