// Front door → store or replica: how the Worker tells a Durable Object's fetch handler what a watch is
// for and whose it is. Shared by both sides, so it lives here rather than in either. The Worker builds
// these headers itself on a fresh request and never forwards a client's own copies (worker/handlers/watch.ts).

export const WATCH_HEADERS = {
  type: 'x-edgeplane-type', // group/resource, e.g. core/pods
  namespace: 'x-edgeplane-namespace',
  name: 'x-edgeplane-name',
  table: 'x-edgeplane-table', // "1": frames carry meta.k8s.io Tables (kubectl get -w)
  protocol: 'x-edgeplane-protocol', // the WebSocket subprotocol to echo, if any
  replica: 'x-edgeplane-replica', // the replica's own name, so it can subscribe under it
  user: 'x-edgeplane-user', // whose watch quota this watch counts against; absent: a system component (watch-quota.ts)
} as const;
