// Front door → store: how the Worker tells the store's fetch handler what a watch is for. The Worker
// builds these headers itself and never forwards a client's own x-edgeplane-* headers.

export const WATCH_HEADERS = {
  type: 'x-edgeplane-type', // group/resource, e.g. core/pods
  namespace: 'x-edgeplane-namespace',
  name: 'x-edgeplane-name',
  table: 'x-edgeplane-table', // "1": frames carry meta.k8s.io Tables (kubectl get -w)
  protocol: 'x-edgeplane-protocol', // the WebSocket subprotocol to echo, if any
  replica: 'x-edgeplane-replica', // the replica's own name, so it can subscribe under it
} as const;
