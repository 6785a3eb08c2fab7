// Worker and Durable Objects: the CRD store as the source of this isolate's CRD-defined types
// (core/crd/registry-sync.ts). Built-in types never wait for it.

import { CRD_GROUP_RESOURCE, type Crd } from '../core/crd/crd-object';
import { knownCrdRevision, syncCustomTypes, type CrdSource } from '../core/crd/registry-sync';
import { isBuiltInGroupResource } from '../core/registry';
import type { ResourceStore } from './resource-store';

export interface CrdEnv {
  STORE?: DurableObjectNamespace<ResourceStore>;
}

// How stale an isolate's view of the CRDs may be; a forwarded request's revision overrides it.
export const CRD_MAX_AGE_MS = 1000;
// The header a watch forwarded to a store or replica carries the front door's CRD revision in.
export const CRD_REVISION_HEADER = 'x-edgeplane-crd-revision';

export function crdSource(env: CrdEnv): CrdSource {
  const store = () => env.STORE!.get(env.STORE!.idFromName(CRD_GROUP_RESOURCE));
  return {
    revision: () => store().currentRevision(CRD_GROUP_RESOURCE),
    list: async () => {
      const res = await store().list(CRD_GROUP_RESOURCE, { namespace: '', query: '', format: { as: 'List' } });
      const body = (await res.json()) as { metadata: { resourceVersion: string }; items: Crd[] };
      if (!res.ok) throw new Error(`CRD list failed: ${JSON.stringify(body)}`);
      return { revision: Number(body.metadata.resourceVersion), items: body.items };
    },
  };
}

/** Makes sure the registry knows `groupResource` as of `minRevision` (a store or replica about to serve it). */
export async function knowType(env: CrdEnv, groupResource: string, minRevision?: number): Promise<void> {
  if (isBuiltInGroupResource(groupResource) || !env.STORE) return;
  await syncCustomTypes(crdSource(env), { now: Date.now(), maxAgeMs: CRD_MAX_AGE_MS, minRevision });
}

/** The revision to forward with a request, so the Durable Object serving it knows at least as much. */
export function forwardedCrdRevision(): number | undefined {
  const r = knownCrdRevision();
  return r >= 0 ? r : undefined;
}
