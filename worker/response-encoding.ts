// Front door: answers in YAML when the client's Accept prefers application/yaml, for resource
// responses (get, list, writes) and every Status error, as kube-apiserver's YAML serializer does:
// JSON first, then sigs.k8s.io/yaml JSONToYAML (go-yaml v2: keys sorted, sequences not indented).
// Handlers keep producing JSON; this middleware re-encodes the finished response. Watches are
// never touched (YAML has no stream framing; negotiateWatch answers 406 for them).

import type { MiddlewareHandler } from 'hono';
import { stringify } from 'yaml';
import type { AppEnv } from './env';
import { negotiateOutput } from './negotiation';

export const YAML_CONTENT_TYPE = 'application/yaml';

export const encodeResponse: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  const accept = c.req.header('accept');
  if (!accept || !accept.toLowerCase().includes('yaml')) return;
  let media: string;
  try {
    media = negotiateOutput(accept).media;
  } catch {
    return; // 406 itself: apimachinery writes the error as JSON when it cannot negotiate
  }
  const res = c.res;
  if (media !== 'yaml' || !(res.headers.get('content-type') ?? '').startsWith('application/json')) return;
  const info = c.get('request');
  if (info?.verb === 'watch') return;
  // Discovery and OpenAPI have their own formats; only resource answers and errors are re-encoded.
  if (!info && res.status < 400) return;
  const text = await res.text();
  const headers = new Headers(res.headers);
  headers.set('content-type', YAML_CONTENT_TYPE);
  headers.delete('content-length');
  c.res = undefined; // drop the old response, so its headers (content-length) are not merged back
  c.res = new Response(text ? jsonToYaml(text) : text, { status: res.status, headers });
};

export function jsonToYaml(json: string): string {
  return stringify(JSON.parse(json), { sortMapEntries: true, indentSeq: false, aliasDuplicateObjects: false });
}
