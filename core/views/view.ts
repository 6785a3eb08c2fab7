// Core: one API served over another type's store (a view): events.k8s.io/v1 Events over core/v1's store, a CRD's
// served version over its storage version. The front door names the view a request speaks (servedBy); the store
// converts on its one serializer path: a written body once it is parsed, the answer before it is serialized, a
// listed or read object's stored text without parsing it, a watch frame once per watcher of the view.

import { apiVersionOf, groupResource, lookupGroupResource, type ResourceType } from '../registry';
import { EVENTS_V1, EVENTS_V1_VIEW } from './events-v1';
import { crdVersionView } from './crd-version';
import { HPA_V1_VIEW } from './hpa-v1';
import { HPA_V1, HPA_V2 } from '../autoscaling/hpa-v1';

type Obj = Record<string, unknown>;

export interface ApiView {
  /** The apiVersion this view's clients read and write. */
  readonly apiVersion: string;
  /** A written object (parsed), as the store keeps it; anything else unchanged. */
  toStorage(obj: Obj): Obj;
  /** A patch body written through the view, in the store's field names (only apply, when patchInView). */
  patchToStorage(text: string): string;
  /**
   * A JSON, merge or strategic patch is applied to the object as the view shows it, then converted back (a
   * structural conversion, ./hpa-v1.ts), instead of being rewritten into the store's terms.
   */
  readonly patchInView?: boolean;
  /** An answer (object, list, Table) as the view shows it; a Status unchanged. */
  fromStorage(value: unknown): unknown;
  /** A stored object's JSON as the view shows it, without parsing it. */
  json(stored: string): string;
  /** One watch frame. */
  frame(text: string): string;
}

/** The view from a store's apiVersion to the requested one; undefined when they are the same. */
export function viewBetween(stored: string, requested: string | undefined): ApiView | undefined {
  if (!requested || requested === stored) return undefined;
  if (stored === 'v1' && requested === EVENTS_V1) return EVENTS_V1_VIEW;
  if (stored === HPA_V2 && requested === HPA_V1) return HPA_V1_VIEW;
  const group = (v: string) => (v.includes('/') ? v.slice(0, v.indexOf('/')) : '');
  if (group(stored) !== '' && group(stored) === group(requested)) return crdVersionView(stored, requested);
  throw new Error(`no view of ${stored} as ${requested}`);
}

/** The view of `storage` (the store's type) as `requested` (an apiVersion), if it differs. */
export function viewFor(storage: ResourceType, requested: string | undefined): ApiView | undefined {
  return viewBetween(apiVersionOf(storage), requested);
}

/** A stored object's JSON as a read through the view `requested` (an apiVersion) answers it. */
export function jsonInView(storage: ResourceType, requested: string | undefined, stored: string): string {
  const view = viewFor(storage, requested);
  return view ? view.json(stored) : stored;
}

/**
 * Where a request for `type` is served: the type whose store holds its objects (the same type, or the one a view is
 * over) and, when that store must answer in another apiVersion, the view.
 */
export function servedBy(type: ResourceType): { type: ResourceType; view?: ApiView } {
  if (type.viewOf) {
    const storage = lookupGroupResource(type.viewOf)!;
    return { type: storage, view: viewFor(storage, apiVersionOf(type)) };
  }
  // A CRD version other than the storage one: the same store, which holds the storage version.
  const storage = type.custom && !type.custom.storage ? lookupGroupResource(groupResource(type)) : undefined;
  return storage?.custom ? { type, view: viewFor(storage, apiVersionOf(type)) } : { type };
}
