// Client: request URLs. The server may carry a path prefix (behind a proxy), so paths are appended to it
// rather than resolved against it, which would drop the prefix.

import { encode as base64url } from 'jose/base64url';

type QueryValue = string | number | boolean | undefined;

export function apiUrl(server: string, path: string, query: Record<string, QueryValue> = {}): URL {
  const url = new URL(server.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`));
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
  }
  return url;
}

/** The same URL for a WebSocket: ws: for http:, wss: for https:. */
export function socketUrl(url: URL): string {
  const ws = new URL(url);
  ws.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return ws.toString();
}

/** The value kube-apiserver's WebSocket authenticator accepts in place of an Authorization header. */
export function bearerProtocol(token: string): string {
  return `base64url.bearer.authorization.k8s.io.${base64url(token)}`;
}
