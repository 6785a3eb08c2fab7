// Front door: a watch goes to the store's fetch handler, which answers with a chunked JSON stream or
// accepts the WebSocket upgrade itself, so frames flow from the store to the client without a hop here.
// The forwarded request is built fresh: only the upgrade handshake and the internal headers set here
// reach the store, never a client's own x-edgeplane-* headers.

import type { Context } from 'hono';
import type { ResourceRequest } from '../../core/request-info';
import type { ResourceType } from '../../core/registry';
import { apiVersionOf, groupResource } from '../../core/registry';
import { API_VERSION_HEADER, CRD_REVISION_HEADER, WATCH_HEADERS } from '../../contract/headers';
import { needsConversion } from '../../core/crd/versions';
import type { AppEnv } from '../env';
import { isPrivileged } from '../../core/rbac/authorize';
import { storeFor } from '../stores';
import { negotiateWatch } from '../negotiation';
import { BEARER_PROTOCOL_PREFIX } from '../auth';
import { clientKey, mayChooseReplica, replicaFor } from '../replicas';
import { isSystemWatcher } from '../../core/watch/quota';
import { forwardedCrdRevision } from '../../contract/crd-types';

// The handshake headers a WebSocket upgrade needs to reach the store intact.
const UPGRADE_HEADERS = ['upgrade', 'connection', 'sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions'];

/** `asVersion`: the apiVersion the watcher asked for when it differs from the store's (the events.k8s.io/v1 view). */
export async function watch(c: Context<AppEnv>, type: ResourceType, info: ResourceRequest, url: URL, asVersion?: string): Promise<Response> {
  const headers = new Headers();
  for (const name of UPGRADE_HEADERS) {
    const v = c.req.header(name);
    if (v) headers.set(name, v);
  }
  headers.set(WATCH_HEADERS.type, groupResource(type));
  headers.set(WATCH_HEADERS.namespace, info.namespace);
  headers.set(WATCH_HEADERS.name, info.name);
  if (negotiateWatch(c.req.header('accept')).table) headers.set(WATCH_HEADERS.table, '1');
  const protocol = echoedProtocol(c.req.header('sec-websocket-protocol'));
  if (protocol) headers.set(WATCH_HEADERS.protocol, protocol);
  // The watch quota (core/watch/quota.ts) counts tenants only: system components are never refused for
  // others' watches. An impersonated identity is a tenant whatever its name (worker/authz.ts): only the gateway's
  // own credentials make a component, and impersonating system:masters is holding it.
  const user = c.get('user');
  const system = isSystemWatcher(user) && (!c.get('impersonator') || isPrivileged(user));
  if (!system) headers.set(WATCH_HEADERS.user, user.username);
  const crdRevision = type.custom ? forwardedCrdRevision() : undefined;
  if (needsConversion(type)) headers.set(API_VERSION_HEADER, apiVersionOf(type));
  if (asVersion) headers.set(API_VERSION_HEADER, asVersion);
  if (crdRevision !== undefined) headers.set(CRD_REVISION_HEADER, String(crdRevision));
  const replica = replicaFor(c.env, c.get('settings'), type, c.req.raw, clientKey(user.username, c.req.raw), mayChooseReplica(user));
  if (replica) headers.set(WATCH_HEADERS.replica, replica.name);
  const forwarded = new Request(`https://store.internal/watch${url.search}`, { headers });
  return replica ? replica.stub.fetch(forwarded) : storeFor(c.env, type).fetch(forwarded);
}

/** kube-apiserver strips the bearer-token protocol and echoes one of the others (e.g. base64.binary.k8s.io). */
function echoedProtocol(offered: string | undefined): string | undefined {
  return offered?.split(',').map((p) => p.trim()).find((p) => p && !p.startsWith(BEARER_PROTOCOL_PREFIX));
}
