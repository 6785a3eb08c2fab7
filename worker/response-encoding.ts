// Front door: re-encodes a finished JSON answer the way kube-apiserver's serializers would have
// written it, so handlers only ever produce JSON. For resource answers (get, list, writes) and every
// Status error:
// - YAML when the client's Accept prefers application/yaml: JSON first, then sigs.k8s.io/yaml
//   JSONToYAML (go-yaml v2's emitter, ported iteratively in core/encoding/yaml-encode.ts);
// - Kubernetes protobuf when it prefers application/vnd.kubernetes.protobuf (client-go's typed clients),
//   for every kind with a schema; anything else stays JSON, which client-go reads by its Content-Type;
// - indented JSON for `?pretty=true`, or for curl, Wget and browsers (responsewriters isPrettyPrint).
// - compact JSON ends with a newline, as encoding/json's Encoder.Encode writes it (apimachinery's JSON serializer
//   for every object, Status and discovery document; its pretty form, MarshalIndent, has none).
// Watches are never touched (they stream JSON; watch events are never indented).

import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from './env';
import { negotiateOutput, type OutputMedia } from './negotiation';
import { jsonToProtobuf } from '../core/protobuf/encode';
import { PROTOBUF_CONTENT_TYPE } from '../core/protobuf/decode';
import { jsonToYaml, yamlChunks } from '../core/encoding/yaml-encode';
import { indentedJson } from '../core/encoding/json-indent';
import { requestUrl } from './request-url';
import { BODY_NEWLINE_HEADER } from '../contract/headers';

export { jsonToYaml };

export const YAML_CONTENT_TYPE = 'application/yaml';

export const encodeResponse: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  const res = c.res;
  if (!(res.headers.get('content-type') ?? '').startsWith('application/json')) return;
  const made = madeFrom.get(res);
  const info = c.get('request');
  // Discovery and OpenAPI have their own formats; only resource answers and errors are re-encoded.
  const media = info || res.status >= 400 ? preferredMedia(c.req.header('accept')) : 'json';
  // What apimachinery's serializer writes (objects, Status, discovery); /version and OpenAPI are written as they are.
  const serialized = info?.verb !== 'watch' && (!!info || res.status >= 400 || isDiscoveryPath(new URL(c.req.url).pathname));
  if (!serialized) {
    // A handler's JSON answer on a path nothing serializes (test hooks): as it was made, with no newline.
    if (made !== undefined) replace(c, new Response(made, { status: res.status, headers: withoutInternal(res.headers) }));
    return;
  }
  const pretty = media === 'json' && isPrettyPrint(c.req.raw);
  const ended = res.headers.has(BODY_NEWLINE_HEADER);
  if (media === 'json' && !pretty) {
    if (ended) dropNewlineHeader(c, res);
    else if (res.body) replace(c, withTrailingNewline(res));
    return;
  }
  const read = made ?? await res.text();
  const text = made === undefined && ended && read.endsWith('\n') ? read.slice(0, -1) : read;
  let body: BodyInit = text;
  let contentType = 'application/json';
  // YAML and indented JSON grow with nesting depth (two spaces a level): streamed in pieces, never held whole.
  if (text && media === 'yaml') {
    body = streamOf(yamlChunks(text));
    contentType = YAML_CONTENT_TYPE;
  } else if (text && media === 'protobuf') {
    const encoded = jsonToProtobuf(JSON.parse(text));
    if (encoded) {
      body = encoded as Uint8Array<ArrayBuffer>;
      contentType = PROTOBUF_CONTENT_TYPE;
    }
  } else if (text && pretty) {
    body = streamOf(indentedJson(text));
  }
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  headers.delete(BODY_NEWLINE_HEADER);
  headers.set('content-type', contentType);
  c.res = undefined; // drop the old response, so its headers (content-length) are not merged back
  c.res = new Response(body, { status: res.status, headers });
};

const NEWLINE = new TextEncoder().encode('\n');

// JSON answers the handlers made from a string (jsonResponse), by response: re-encoded from that string, with no
// stream read, and their newline appended to it rather than by a TransformStream per response (bench/profile.ts
// writes-64: that stream, its pipe and the copied response were ~2.8% of a create's CPU). A response not found
// here (rebuilt by a middleware on its way) takes the stream path, to the same bytes.
const madeFrom = new WeakMap<Response, string>();

/**
 * A JSON answer of `code` with `body`, as handlers answer a store's reply. Made as compact JSON leaves — ending with
 * its newline, marked by BODY_NEWLINE_HEADER — since that is what nearly every answer is: one Response per answer,
 * not a second one in encodeResponse (a Response with a string body was ~3% of a create's thread in
 * bench/profile.ts writes-1 --store-only; two were made per answer).
 */
export function jsonResponse(code: number, body: string): Response {
  const res = new Response(`${body}\n`, { status: code, headers: { 'content-type': 'application/json', [BODY_NEWLINE_HEADER]: '1' } });
  madeFrom.set(res, body);
  return res;
}

function replace(c: Context<AppEnv>, res: Response): void {
  c.res = undefined; // drop the old response, so its headers (content-length) are not merged back
  c.res = res;
}

function withoutInternal(headers: Headers): Headers {
  const copy = new Headers(headers);
  copy.delete('content-length');
  copy.delete(BODY_NEWLINE_HEADER);
  return copy;
}

/** The body passed through as it comes, one newline after its last byte (small answers: Status errors, the like). */
function withTrailingNewline(res: Response): Response {
  const body = res.body!.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
    flush(controller) {
      controller.enqueue(NEWLINE);
    },
  }));
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  return new Response(body, { status: res.status, headers });
}

/**
 * A body that ends with its newline already — a handler's answer (jsonResponse) or a list's (durable-objects/
 * list-response.ts) — passed on as it is, without the header saying so: in place when the headers may change, else
 * (a Durable Object's answer: immutable headers) in a new Response around the same body. Appending the newline here
 * cost a JavaScript TransformStream, a promise turn per chunk: ~600 of the ~900 ms of a 10,000-pod list (31.7 MB;
 * bench `--only=lists`, and a workerd micro-benchmark of the same body: 0.52-0.67 s through it, 0.07-0.30 s
 * without). (A native IdentityTransformStream fed by `pipeTo` was as fast, but workerd refuses to pipe some bodies
 * into one: "Inter-TransformStream ReadableStream.pipeTo() is not implemented".)
 */
function dropNewlineHeader(c: Context<AppEnv>, res: Response): void {
  try {
    res.headers.delete(BODY_NEWLINE_HEADER);
    res.headers.delete('content-length');
  } catch {
    replace(c, new Response(res.body, { status: res.status, headers: withoutInternal(res.headers) }));
  }
}

/** The discovery documents (apiserver's discovery handlers write them through the same serializer as objects). */
export function isDiscoveryPath(path: string): boolean {
  const parts = path.split('/', 5).filter((p) => p !== '');
  if (path.length > 1 && path.endsWith('/')) return false;
  if (parts[0] === 'api') return parts.length <= 2;
  if (parts[0] === 'apis') return parts.length <= 3;
  return false;
}

function streamOf(chunks: Generator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    cancel() {
      chunks.return(undefined);
    },
  });
}

function preferredMedia(accept: string | undefined): OutputMedia {
  // Fast path: most clients (kubectl get, informers) ask for JSON only.
  if (!accept || !/yaml|protobuf/i.test(accept)) return 'json';
  try {
    return negotiateOutput(accept).media;
  } catch {
    return 'json'; // a 406 itself: apimachinery writes the error as JSON when it cannot negotiate
  }
}

// strconv.ParseBool, which isPrettyPrint uses (not the query-parameter conversion).
const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const PRETTY_AGENTS = ['curl', 'Wget', 'Mozilla/5.0'];

/** apiserver responsewriters isPrettyPrint: a non-empty `pretty` decides; otherwise curl, Wget and browsers. */
export function isPrettyPrint(req: Request): boolean {
  // Most requests carry no `pretty` at all (nor an escaped name that could decode to it): no query to parse.
  const q = req.url.indexOf('?');
  const pretty = q >= 0 && (req.url.includes('pretty', q) || req.url.includes('%', q)) ? requestUrl(req).searchParams.get('pretty') : null;
  if (pretty) return GO_TRUE.has(pretty);
  const agent = req.headers.get('user-agent') ?? '';
  return PRETTY_AGENTS.some((p) => agent.startsWith(p));
}
