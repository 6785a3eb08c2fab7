// Core: duplicate fields in a JSON body, which JSON.parse silently merges (the last wins) and
// kube-apiserver's strict decoder reports (`duplicate field "metadata.name"`, sigs.k8s.io/json
// DisallowDuplicateFields) for struct fields and typed map keys, not inside raw or untyped values.
//
// Cheap first: a body whose member count (one native regex pass) equals the count the decoder saw in
// the parsed value has no duplicate. Only otherwise is the text scanned key by key, with the project's
// Go JSON scanner (core/patch/go-json-scanner.ts), to find and word them.

import { scanStructure } from '../patch/go-json-scanner';
import { strictPathText } from './decode';
import type { SchemaNode } from './node';

/** `duplicate field "x"` errors for `text`, given the members the decoder counted in its parsed value. */
export function duplicateFields(text: string, root: SchemaNode, parsedMembers: number): string[] {
  if (countMembers(text) === parsedMembers) return [];
  return findDuplicates(text, root);
}

/**
 * Object members in a JSON text that JSON.parse accepted: strings followed by a colon. It hops from
 * quote to quote with indexOf (no per-character work outside strings' ends), which is all a count
 * needs; finding and wording the duplicates is the Go scanner's job.
 */
export function countMembers(text: string): number {
  let n = 0;
  let i = text.indexOf('"');
  while (i >= 0) {
    let end = text.indexOf('"', i + 1);
    while (end > 0 && escaped(text, end)) end = text.indexOf('"', end + 1);
    if (end < 0) break;
    let k = end + 1;
    let c = text.charCodeAt(k);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = text.charCodeAt(++k);
    if (c === 0x3a) n++;
    i = text.indexOf('"', k);
  }
  return n;
}

// Whether the quote at `at` is escaped: an odd run of backslashes before it.
function escaped(text: string, at: number): boolean {
  let k = at - 1;
  while (text.charCodeAt(k) === 0x5c) k--;
  return (at - 1 - k) % 2 === 1;
}

interface Frame {
  node?: SchemaNode; // the schema of this object or array, when Go checks it
  keys?: Set<string>;
  index: number;
  pushed: boolean; // whether this frame's key/index is on the path
}

function findDuplicates(text: string, root: SchemaNode): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const path: (string | number)[] = [];
  const frames: Frame[] = [];
  const decoder = new TextDecoder();
  let next: SchemaNode | undefined = root; // schema of the value about to open
  scanStructure(text, {
    open(kind) {
      const node = next && checked(next) ? next : undefined;
      frames.push({ node, keys: kind === 'object' ? new Set() : undefined, index: -1, pushed: false });
      next = undefined;
    },
    key(raw) {
      const f = frames[frames.length - 1];
      if (f.pushed) path.pop();
      const key = JSON.parse(decoder.decode(raw)) as string;
      const child = f.node ? childOf(f.node, key) : undefined;
      if (f.node && child && f.keys!.has(key)) {
        const parent = strictPathText(path);
        const msg = `duplicate field ${JSON.stringify(parent ? `${parent}.${key}` : key)}`;
        if (!seen.has(msg)) {
          seen.add(msg);
          found.push(msg);
        }
      }
      f.keys!.add(key);
      path.push(key);
      f.pushed = true;
      next = child;
    },
    element() {
      const f = frames[frames.length - 1];
      if (f.pushed) path.pop();
      f.index++;
      path.push(f.index);
      f.pushed = true;
      next = f.node?.items;
    },
    close() {
      const f = frames.pop()!;
      if (f.pushed) path.pop();
      next = undefined;
    },
  });
  return found;
}

// Objects Go decodes into a struct or a typed map (not raw JSON, not untyped values).
function checked(n: SchemaNode): boolean {
  if (n.special) return false;
  return n.type === 'array' ? !!n.items : n.type === 'object' && (!!n.properties || !!n.additionalProperties);
}

function childOf(n: SchemaNode, key: string): SchemaNode | undefined {
  if (n.properties) return n.properties[key];
  return n.additionalProperties;
}
