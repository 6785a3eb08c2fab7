// Front door: re-encodes a finished JSON answer the way kube-apiserver's serializers would have
// written it, so handlers only ever produce JSON:
// - YAML when the client's Accept prefers application/yaml, for resource answers (get, list, writes)
//   and every Status error: JSON first, then sigs.k8s.io/yaml JSONToYAML (go-yaml v2: keys sorted,
//   sequences not indented under their key);
// - indented JSON for `?pretty=true`, or for curl, Wget and browsers (responsewriters isPrettyPrint).
// Watches are never touched (YAML has no stream framing, and watch events are never indented).

import type { MiddlewareHandler } from 'hono';
import { stringify } from 'yaml';
import type { AppEnv } from './env';
import { negotiateOutput } from './negotiation';

export const YAML_CONTENT_TYPE = 'application/yaml';

export const encodeResponse: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  const res = c.res;
  if (!(res.headers.get('content-type') ?? '').startsWith('application/json')) return;
  const info = c.get('request');
  if (info?.verb === 'watch') return;
  // Discovery and OpenAPI have their own formats; only resource answers and errors turn into YAML.
  const yaml = (!!info || res.status >= 400) && prefersYaml(c.req.header('accept'));
  if (!yaml && !isPrettyPrint(c.req.raw)) return;
  const text = await res.text();
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  if (yaml) headers.set('content-type', YAML_CONTENT_TYPE);
  c.res = undefined; // drop the old response, so its headers (content-length) are not merged back
  c.res = new Response(text ? (yaml ? jsonToYaml(text) : JSON.stringify(JSON.parse(text), null, 2)) : text, { status: res.status, headers });
};

function prefersYaml(accept: string | undefined): boolean {
  if (!accept || !accept.toLowerCase().includes('yaml')) return false;
  try {
    return negotiateOutput(accept).media === 'yaml';
  } catch {
    return false; // a 406 itself: apimachinery writes the error as JSON when it cannot negotiate
  }
}

export function jsonToYaml(json: string): string {
  return stringify(JSON.parse(json), { sortMapEntries: true, indentSeq: false, aliasDuplicateObjects: false });
}

// strconv.ParseBool, which isPrettyPrint uses (not the query-parameter conversion).
const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const PRETTY_AGENTS = ['curl', 'Wget', 'Mozilla/5.0'];

/** apiserver responsewriters isPrettyPrint: a non-empty `pretty` decides; otherwise curl, Wget and browsers. */
export function isPrettyPrint(req: Request): boolean {
  const url = new URL(req.url);
  const pretty = url.searchParams.get('pretty');
  if (pretty) return GO_TRUE.has(pretty);
  const agent = req.headers.get('user-agent') ?? '';
  return PRETTY_AGENTS.some((p) => agent.startsWith(p));
}
