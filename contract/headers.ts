// Contract: every x-edgeplane-* header. Internal ones carry a watch from the Worker to a store or replica:
// the Worker builds them itself on a fresh request and never forwards a client's own copies
// (worker/handlers/watch.ts). Two are a client's: system:masters may pick a replica (worker/replicas.ts).

/** Worker → store or replica: what a watch is for and whose it is. */
export const WATCH_HEADERS = {
  type: 'x-edgeplane-type', // group/resource, e.g. core/pods
  namespace: 'x-edgeplane-namespace',
  name: 'x-edgeplane-name',
  table: 'x-edgeplane-table', // "1": frames carry meta.k8s.io Tables (kubectl get -w)
  protocol: 'x-edgeplane-protocol', // the WebSocket subprotocol to echo, if any
  replica: 'x-edgeplane-replica', // the replica's own name, so it can subscribe under it
  user: 'x-edgeplane-user', // whose watch quota this watch counts against; absent: a system component (core/watch/quota.ts)
} as const;

/** Worker → store or replica: the apiVersion a watch asked for, when it is not the storage version's. */
export const API_VERSION_HEADER = 'x-edgeplane-api-version';

/** Worker → store or replica: the front door's CRD store revision, so the object serving knows at least as much. */
export const CRD_REVISION_HEADER = 'x-edgeplane-crd-revision';

/**
 * Store or replica → Worker, on a list's answer: its body already ends with the newline compact JSON ends with
 * (durable-objects/list-response.ts), so the front door passes it on untouched (worker/response-encoding.ts) and
 * drops this header.
 */
export const BODY_NEWLINE_HEADER = 'x-edgeplane-body-newline';

/** Client → Worker (system:masters only): the replica location to be served from, or `store` for none. */
export const LOCATION_HEADER = 'x-edgeplane-location';
/** Client → Worker (system:masters only): the replica index within that location. */
export const REPLICA_INDEX_HEADER = 'x-edgeplane-replica-index';

/**
 * Client → store or replica, as a WebSocket subprotocol offered before any other (the Worker echoes the first
 * non-token one): send several watch events per message, each a newline-ended JSON line, as an HTTP stream's
 * chunks do. edgeplane's own client and console offer it (client/watch-stream.ts); kube clients do not, and
 * keep one event per message. kube-apiserver does not know it and echoes the next protocol offered.
 */
export const MULTI_EVENT_PROTOCOL = 'multi-event.watch.edgeplane.dev';
