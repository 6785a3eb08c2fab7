// Front door: what representation the client asked for, negotiated as kube-apiserver does
// (apiserver pkg/endpoints/handlers/negotiation/negotiate.go): Accept clauses in q order, the first
// one a serializer takes wins. JSON, YAML and Kubernetes protobuf are served (./response-encoding
// turns the handlers' JSON into the others). `as=Table;g=meta.k8s.io;v=v1` asks get and list for a
// Table, served as JSON or YAML. Watches stream JSON: a protobuf clause is passed over for them (client-go
// reads the stream by its Content-Type), and YAML, which has no stream framing, is refused.

import type { ListFormat } from '../core/list/render';
import type { IncludeObject } from '../core/tables/table';
import { notAcceptable, StatusError } from '../core/status';

export type OutputMedia = 'json' | 'yaml' | 'protobuf';

export interface OutputFormat {
  media: OutputMedia;
  table: boolean;
}

// negotiate.go MediaTypesForSerializer: the message lists every media type of the codec factory.
const NOT_ACCEPTABLE = 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf';
const NOT_ACCEPTABLE_STREAM = 'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch';

interface Clause {
  type: string;
  subtype: string;
  params: Record<string, string>;
  q: number;
}

// goautoneg ParseAccept: by q, then the more specific range first; otherwise in the order sent.
function parseAccept(accept: string): Clause[] {
  const clauses: (Clause & { i: number })[] = [];
  accept.split(',').forEach((range, i) => {
    const [mediaRange, ...rawParams] = range.split(';').map((p) => p.trim());
    if (!mediaRange) return;
    const [type, subtype = '*'] = mediaRange.toLowerCase().split('/');
    const params: Record<string, string> = {};
    let q = 1;
    for (const kv of rawParams) {
      const eq = kv.indexOf('=');
      const k = (eq < 0 ? kv : kv.slice(0, eq)).trim();
      const v = eq < 0 ? '' : kv.slice(eq + 1).trim();
      if (k === 'q') q = Number(v) || 0;
      else if (k) params[k] = v;
    }
    clauses.push({ type, subtype, params, q, i });
  });
  const specificity = (c: Clause) => (c.type === '*' ? 0 : c.subtype === '*' ? 1 : 2);
  return clauses.sort((a, b) => b.q - a.q || specificity(b) - specificity(a) || a.i - b.i);
}

// The serializers in the codec factory's order, so `application/*` and `*/*` pick JSON.
const SERIALIZERS = [
  { type: 'application', subtype: 'json', media: 'json' as const },
  { type: 'application', subtype: 'yaml', media: 'yaml' as const },
  { type: 'application', subtype: 'vnd.kubernetes.protobuf', media: 'protobuf' as const },
];

function matches(c: Clause, s: (typeof SERIALIZERS)[number]): boolean {
  return (c.type === s.type && (c.subtype === s.subtype || c.subtype === '*')) || (c.type === '*' && c.subtype === '*');
}

/** The conversion a clause asks for: none, a Table, or one this server cannot do (the clause is skipped). */
function conversion(params: Record<string, string>): 'none' | 'table' | 'unsupported' {
  if (!params.as) return 'none';
  const table = params.as === 'Table' && params.g === 'meta.k8s.io' && (params.v === 'v1' || params.v === 'v1beta1');
  return table ? 'table' : 'unsupported';
}

/**
 * The response format for get, list and writes; 406 NotAcceptable when no clause can be served.
 * No Accept header means JSON, the first serializer.
 */
export function negotiateOutput(accept: string | undefined): OutputFormat {
  if (!accept?.trim()) return { media: 'json', table: false };
  for (const clause of parseAccept(accept)) {
    const conv = conversion(clause.params);
    if (conv === 'unsupported') continue;
    for (const s of SERIALIZERS) {
      if (!matches(clause, s)) continue;
      if (s.media === 'protobuf' && conv === 'table') break; // no protobuf Table here: try the next clause
      return { media: s.media, table: conv === 'table' };
    }
  }
  throw new StatusError(notAcceptable(NOT_ACCEPTABLE));
}

/**
 * A watch's format (NegotiateOutputMediaTypeStream): the first clause a serializer takes must have a
 * stream framing, so a client preferring YAML gets 406 even if it would also take JSON.
 */
export function negotiateWatch(accept: string | undefined): { table: boolean } {
  if (!accept?.trim()) return { table: false };
  for (const clause of parseAccept(accept)) {
    const conv = conversion(clause.params);
    if (conv === 'unsupported') continue;
    for (const s of SERIALIZERS) {
      if (!matches(clause, s)) continue;
      if (s.media === 'protobuf') break; // streamed as JSON: take the client's next clause
      if (s.media === 'yaml') throw new StatusError(notAcceptable(NOT_ACCEPTABLE_STREAM));
      return { table: conv === 'table' };
    }
  }
  throw new StatusError(notAcceptable(NOT_ACCEPTABLE_STREAM));
}

/** Whether get or list renders a List/object or a Table (the encoding is applied by ./response-encoding). */
export function listFormat(accept: string | undefined, includeObject: string | undefined): ListFormat {
  return negotiateOutput(accept).table ? { as: 'Table', includeObject: parseIncludeObject(includeObject) } : { as: 'List' };
}

function parseIncludeObject(v: string | undefined): IncludeObject {
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}
