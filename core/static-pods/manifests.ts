// Core: static pod manifests as a kubelet reads them (pkg/kubelet/config: http.go extractFromURL, file.go,
// common.go tryDecodeSinglePod/tryDecodePodList/applyDefaults) and the mirror pod it publishes for each
// (pkg/kubelet/pod/mirror_client.go CreateMirrorPod). A manifest is YAML or JSON: one Pod, a PodList (or v1
// List of Pods), or several documents (kube reads one pod or one list; more documents are an edgeplane
// extension, for a folder served as one stream). Bounded: the text in bytes, the documents and pods in
// count, each document's decoded size (aliases) and nesting; a bad document is reported and skipped, never
// the rest.

import { Composer, Lexer, Parser } from 'yaml';
import { boundedJson, MAX_ALIAS_COUNT, PARSE_OPTIONS } from '../encoding/yaml-decode';
import { jsonDepthError } from '../encoding/json-depth';
import { fnv1a64Hex } from '../hash';

/** Bytes of manifest text read per source; beyond it the whole read is refused (kube reads any size). */
export const MAX_MANIFEST_BYTES = 1024 * 1024;
/** Static pods per source; the rest are skipped with a problem. */
export const MAX_STATIC_PODS = 100;
// Documents looked at per read (empty ones included), so a stream of 100,000 `---` costs little.
const MAX_DOCUMENTS = 2 * MAX_STATIC_PODS;
// One document's text (composed in one step, see parseManifests) and its decoded JSON (an alias bomb stops
// there): kubeadm's static pods are about 4 KiB; a pod with a hundred containers about 40.
const MAX_DOCUMENT_BYTES = 64 * 1024;
// Pod specs nest about 15 deep; the canonical walk below recurses, so deeper documents are refused.
const MAX_DEPTH = 64;
// The text's nesting bound (flow brackets, indentation): the yaml package composes recursively, and a stack
// overflow deep inside it can end the process rather than throw; 4-space indentation of a pod spec stays far below.
const MAX_NESTING = 256;

// pkg/kubelet/types/pod_update.go
export const CONFIG_MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
export const CONFIG_HASH_ANNOTATION = 'kubernetes.io/config.hash';
export const CONFIG_SEEN_ANNOTATION = 'kubernetes.io/config.seen';
export const CONFIG_SOURCE_ANNOTATION = 'kubernetes.io/config.source';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface ParsedManifests {
  pods: Obj[]; // each a Pod with a metadata.name, as written
  problems: string[]; // one line per skipped document, pod or limit, for the log
}

/** Waits for the event loop (injected: a macrotask in the runtime, nothing in tests that need no yielding). */
export type Pause = () => Promise<void>;

// Lexemes handled between two pauses: a few milliseconds of the yaml package's lexer and parser.
const LEXEMES_PER_SLICE = 1024;

/**
 * The pods of a manifest text; never throws. Cooperative: the text is lexed and parsed a slice at a time with a
 * pause between slices and after each document (the yaml package takes about 2 µs a byte, so a 1 MiB manifest in
 * one go would hold the isolate's one thread for seconds). Composing one document is the longest step, so
 * documents are bounded in bytes before they are composed, and the text's nesting is bounded before anything
 * recursive sees it.
 */
export async function parseManifests(text: string, pause: Pause = async () => undefined): Promise<ParsedManifests> {
  const problems: string[] = [];
  const pods: Obj[] = [];
  if (text.length > MAX_MANIFEST_BYTES) return { pods, problems: [`manifest larger than ${MAX_MANIFEST_BYTES} bytes: not read`] };
  const depth = nestingBound(text);
  if (depth > MAX_NESTING) return { pods, problems: [`manifest nested deeper than ${MAX_NESTING} levels: not read`] };
  let index = 0;
  let full = false;
  const composer = new Composer(PARSE_OPTIONS);
  const parser = new Parser();
  const take = (doc: { errors: { message: string }[]; toJS(o: { maxAliasCount: number }): unknown }) => {
    if (full) return;
    index++;
    const where = `document ${index}`;
    if (index > MAX_DOCUMENTS) {
      problems.push(`more than ${MAX_DOCUMENTS} documents: the rest are skipped`);
      full = true;
      return;
    }
    if (doc.errors.length) {
      problems.push(`${where}: ${doc.errors[0].message.split('\n')[0]}`);
      return;
    }
    const value = decode(doc, where, problems);
    if (value === undefined || value === null) return;
    for (const pod of podsOf(value, where, problems)) {
      if (pods.length >= MAX_STATIC_PODS) {
        problems.push(`more than ${MAX_STATIC_PODS} pods: the rest are skipped`);
        full = true;
        return;
      }
      pods.push(pod);
    }
  };
  // A document token is composed only when it is small enough; a big one is counted and skipped.
  let composed = 0;
  const token = async (t: { type: string; offset: number }) => {
    if (t.type === 'document' && parser.offset - t.offset > MAX_DOCUMENT_BYTES) {
      take({ errors: [{ message: `larger than ${MAX_DOCUMENT_BYTES} bytes` }], toJS: () => null });
      return;
    }
    for (const doc of composer.next(t as Parameters<Composer['next']>[0])) {
      take(doc);
      composed++;
    }
    if (composed > 0) {
      composed = 0;
      await pause();
    }
  };
  try {
    let lexemes = 0;
    for (const lexeme of new Lexer().lex(text)) {
      for (const t of parser.next(lexeme)) await token(t);
      if (full) break;
      if (++lexemes % LEXEMES_PER_SLICE === 0) await pause();
    }
    if (!full) for (const t of parser.end()) await token(t);
    if (!full) for (const doc of composer.end()) take(doc);
  } catch (e) {
    problems.push(`document ${index + 1}: ${(e as Error).message.split('\n')[0]}`);
  }
  return { pods, problems };
}

/**
 * An upper bound of a YAML text's nesting, in one linear pass: open flow brackets outside quoted scalars and
 * comments, plus the indentation and block indicators (`- `, `? `, `: `) that open each line. Quoted scalars
 * are taken to end at the line's end (a multi-line one only makes the bound larger, never smaller).
 */
export function nestingBound(text: string): number {
  let max = 0;
  let flow = 0;
  let prefix = 0;
  let atLineStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') {
      atLineStart = true;
      prefix = 0;
      continue;
    }
    if (atLineStart) {
      if (c === ' ' || c === '\t' || c === '-' || c === '?' || c === ':') {
        prefix++;
        max = Math.max(max, prefix + flow);
        continue;
      }
      atLineStart = false;
    }
    const before = i === 0 ? ' ' : text[i - 1];
    const opensToken = before === ' ' || before === '\t' || before === '\n' || before === '[' || before === '{' || before === ',' || before === ':';
    if (c === '#' && (before === ' ' || before === '\t' || before === '\n' || i === 0)) {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else if ((c === '"' || c === "'") && opensToken) {
      for (i++; i < text.length && text[i] !== '\n'; i++) {
        if (c === '"' && text[i] === '\\') i++;
        else if (text[i] === c) break;
      }
      if (text[i] === '\n') i--; // the newline resets the line
    } else if (c === '[' || c === '{') {
      flow++;
      max = Math.max(max, prefix + flow);
    } else if ((c === ']' || c === '}') && flow > 0) {
      flow--;
    }
  }
  return max;
}

/** A document as plain JSON values, bounded in size and depth; undefined (with a problem) when it is not. */
function decode(doc: { toJS(o: { maxAliasCount: number }): unknown }, where: string, problems: string[]): unknown {
  let json: string;
  try {
    json = boundedJson(doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }), MAX_DOCUMENT_BYTES);
  } catch {
    problems.push(`${where}: excessive aliasing or size`);
    return undefined;
  }
  if (jsonDepthError(json, MAX_DEPTH)) {
    problems.push(`${where}: nested deeper than ${MAX_DEPTH} levels`);
    return undefined;
  }
  return JSON.parse(json);
}

function podsOf(value: unknown, where: string, problems: string[]): Obj[] {
  if (!isObj(value)) {
    problems.push(`${where}: not an object`);
    return [];
  }
  if (value.apiVersion === 'v1' && (value.kind === 'PodList' || value.kind === 'List')) {
    const items = Array.isArray(value.items) ? value.items : [];
    return items.flatMap((item, i) => podOf(item, `${where} item ${i}`, problems));
  }
  return podOf(value, where, problems);
}

function podOf(value: unknown, where: string, problems: string[]): Obj[] {
  if (!isObj(value) || value.apiVersion !== 'v1' || value.kind !== 'Pod') {
    const kind = isObj(value) ? `${String(value.apiVersion ?? '')}, Kind=${String(value.kind ?? '')}` : typeof value;
    problems.push(`${where}: not a v1 Pod (${kind})`);
    return [];
  }
  const meta = isObj(value.metadata) ? value.metadata : {};
  if (typeof meta.name !== 'string' || meta.name === '') {
    problems.push(`${where}: metadata.name: Required value`);
    return [];
  }
  return [value];
}

/** Object keys sorted at every level: a manifest's hash does not depend on how its keys were ordered. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObj(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

export type SourceKind = 'http' | 'file';

const fnv128 = (text: string): string => (fnv1a64Hex(text) + fnv1a64Hex(`\u0001${text}`)).toLowerCase();

/** A pod's content as 32 hex digits, whatever the order of its keys: computed once per pod and read. */
export const podDigest = (pod: Obj): string => fnv128(canonical(pod));

/**
 * applyDefaults' UID, which is also the config.hash: kube takes an MD5 of `host:<node>file:<path>` (files) or
 * `url:<url>` (URLs) and the decoded pod; this is a 128-bit FNV over the same parts (the pod as its podDigest,
 * so a file source's many nodes do not hash the pod again each), as 32 hex digits.
 */
export function staticPodHash(digest: string, node: string, source: SourceKind, location: string): string {
  return fnv128(`${source === 'file' ? `host:${node}file:${location}` : `url:${location}`}\u0000${digest}`);
}

/** generatePodName: `<name>-<node, lower case>`. */
export const mirrorPodName = (name: string, node: string): string => `${name}-${node.toLowerCase()}`;

export interface MirrorContext {
  node: string;
  nodeUid: string;
  source: SourceKind;
  hash: string; // staticPodHash of this pod
  seen: string; // config.seen: when this kubelet first saw this version (RFC 3339, nanoseconds)
}

// Fields the apiserver sets itself; a manifest copied from `kubectl get -o yaml` carries them.
const SYSTEM_FIELDS = ['uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'managedFields', 'selfLink', 'generateName'];

/**
 * The mirror pod a kubelet creates for a static pod: applyDefaults (name, namespace `default`, spec.nodeName,
 * config.hash; a NoExecute toleration for file sources), the config.source/config.seen annotations its pod
 * config adds, then CreateMirrorPod's config.mirror annotation and the controller reference to its Node.
 */
export function mirrorPodFor(pod: Obj, c: MirrorContext): Obj {
  const copy = structuredClone(pod);
  const meta: Obj = isObj(copy.metadata) ? copy.metadata : {};
  for (const f of SYSTEM_FIELDS) delete meta[f];
  meta.name = mirrorPodName(String(meta.name), c.node);
  if (typeof meta.namespace !== 'string' || meta.namespace === '') meta.namespace = 'default';
  meta.annotations = {
    ...(isObj(meta.annotations) ? meta.annotations : {}),
    [CONFIG_HASH_ANNOTATION]: c.hash, [CONFIG_SEEN_ANNOTATION]: c.seen, [CONFIG_SOURCE_ANNOTATION]: c.source, [CONFIG_MIRROR_ANNOTATION]: c.hash,
  };
  meta.ownerReferences = [{ apiVersion: 'v1', kind: 'Node', name: c.node, uid: c.nodeUid, controller: true }];
  const spec: Obj = isObj(copy.spec) ? copy.spec : {};
  spec.nodeName = c.node;
  if (c.source === 'file') {
    const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations : [];
    if (!tolerations.some((t) => isObj(t) && t.operator === 'Exists' && t.effect === 'NoExecute' && !t.key)) tolerations.push({ operator: 'Exists', effect: 'NoExecute' });
    spec.tolerations = tolerations;
  }
  delete copy.status;
  return { ...copy, metadata: meta, spec };
}

const annotationsOf = (pod: { metadata?: object }): unknown => (pod.metadata as { annotations?: unknown } | undefined)?.annotations;

/** IsMirrorPod: the config.mirror annotation is present (any value). */
export const isMirrorPod = (pod: { metadata?: object }): boolean => {
  const a = annotationsOf(pod);
  return isObj(a) && CONFIG_MIRROR_ANNOTATION in a;
};

export const mirrorHash = (pod: { metadata?: object }): string | undefined => {
  const a = annotationsOf(pod);
  return isObj(a) && typeof a[CONFIG_MIRROR_ANNOTATION] === 'string' ? a[CONFIG_MIRROR_ANNOTATION] : undefined;
};

/** kubetypes.Timestamp GetString: Go's RFC3339Nano, whose fraction drops its trailing zeros. */
export function seenTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.?0+Z$/, 'Z');
}
