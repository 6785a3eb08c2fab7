// Front door: a request body in application/yaml turned into the JSON text the store works with, as
// kube-apiserver's YAML serializer does (sigs.k8s.io/yaml YAMLToJSON over go-yaml v2, then the JSON
// decoder): YAML 1.1 scalars (yes/no are booleans, 0755 is octal), timestamps kept as strings, merge
// keys, later duplicate keys win, and only the first document of a multi-document body is read.
// Bounded: aliases are capped and the decoded JSON may not outgrow the body limit, so an alias bomb
// ("billion laughs") costs at most that much memory and answers 400.

import { parseAllDocuments, type DocumentOptions, type ParseOptions, type SchemaOptions, type Tags } from 'yaml';
import { badRequest, StatusError } from '../status';

// apiserver MaxRequestBodyBytes: no decoded body may exceed what could have been sent as JSON.
export const MAX_DECODED_BYTES = 3 * 1024 * 1024;
// Alias resolutions per document (the yaml package's own count, nested aliases included).
export const MAX_ALIAS_COUNT = 100;

// Also read by other YAML inputs that must decode as kube's sigs.k8s.io/yaml does (core/static-pods).
export const PARSE_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  uniqueKeys: false,
  // go-yaml v2 hands a timestamp-looking scalar to interface{} as its string.
  customTags: (tags: Tags) => tags.filter((t) => t !== 'timestamp' && !(typeof t === 'object' && String(t.tag).endsWith(':timestamp'))),
};

class TooLarge extends Error {}

/** JSON text of the first YAML document, or a 400 Status naming the kind the endpoint expects. */
export function yamlToJson(text: string, kind: string): string {
  let value: unknown;
  try {
    const docs = parseAllDocuments(text, PARSE_OPTIONS);
    const doc = Array.isArray(docs) ? docs[0] : undefined;
    if (doc?.errors.length) throw unrecognized(kind, `error converting YAML to JSON: ${syntaxError(doc.errors[0])}`, text);
    value = doc ? doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) : null;
  } catch (e) {
    if (e instanceof StatusError) throw e;
    // The yaml package's alias cap, or a nesting too deep for its recursion.
    throw unrecognized(kind, 'error converting YAML to JSON: yaml: document contains excessive aliasing', text);
  }
  // YAMLToJSON of an empty document is `null`, which decodes as an empty object of the endpoint's kind.
  if (value === null || value === undefined) return '{}';
  if (typeof value !== 'object' || Array.isArray(value)) {
    const goType = Array.isArray(value) ? 'array' : typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'bool' : 'string';
    throw unrecognized(kind, `couldn't get version/kind; json parse error: json: cannot unmarshal ${goType} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`, text);
  }
  try {
    return boundedJson(value, MAX_DECODED_BYTES);
  } catch (e) {
    if (e instanceof TooLarge || e instanceof RangeError) {
      throw unrecognized(kind, 'error converting YAML to JSON: yaml: document contains excessive aliasing', text);
    }
    throw e;
  }
}

/** go-yaml's shape, "yaml: line N: <what>", around the yaml package's own description. */
function syntaxError(e: { message: string; linePos?: { line: number }[] }): string {
  const what = e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '').trim();
  const line = e.linePos?.[0]?.line;
  return line ? `yaml: line ${line}: ${what}` : `yaml: ${what}`;
}

/**
 * JSON.stringify with a running size check: aliases share one JS value, so the text can be far larger
 * than the YAML; the walk stops as soon as the output passes `limit`, never building more than that.
 */
export function boundedJson(value: unknown, limit: number): string {
  const parts: string[] = [];
  let size = 0;
  const push = (s: string) => {
    size += s.length;
    if (size > limit) throw new TooLarge();
    parts.push(s);
  };
  const walk = (v: unknown): void => {
    if (v === null || typeof v !== 'object') {
      push(typeof v === 'number' && !Number.isFinite(v) ? 'null' : JSON.stringify(v) ?? 'null');
      return;
    }
    if (Array.isArray(v)) {
      push('[');
      v.forEach((item, i) => {
        if (i) push(',');
        walk(item);
      });
      push(']');
      return;
    }
    push('{');
    let first = true;
    for (const [k, item] of Object.entries(v)) {
      if (item === undefined) continue;
      push(`${first ? '' : ','}${JSON.stringify(k)}:`);
      first = false;
      walk(item);
    }
    push('}');
  };
  walk(value);
  return parts.join('');
}

/**
 * apiserver handlers/rest.go transformDecodeError for a body whose kind could not be read: the error,
 * then a summary of the body (its first 30 bytes, hex unless it starts with '{').
 */
export function unrecognized(kind: string, error: string, body: string): StatusError {
  return new StatusError(badRequest(`the object provided is unrecognized (must be of type ${kind}): ${error} (${summarize(body)})`));
}

function summarize(body: string): string {
  const bytes = new TextEncoder().encode(body);
  if (bytes.length === 0) return '<empty>';
  const head = bytes.subarray(0, 30);
  const more = bytes.length > 30 ? ' ...' : '';
  if (bytes[0] === 0x7b) return new TextDecoder().decode(head) + more;
  return [...head].map((b) => b.toString(16).padStart(2, '0')).join('') + more;
}
