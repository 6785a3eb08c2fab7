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

// Every JSON string in order, and whether it is a key. Strings hold no unescaped quotes and nothing
// between strings has one, so the matches stay aligned on real strings.
const STRINGS = /"(?:[^"\\]|\\.)*"(\s*:)?/g;

/** `duplicate field "x"` errors for `text`, given the members the decoder counted in its parsed value. */
export function duplicateFields(text: string, root: SchemaNode, parsedMembers: number): string[] {
  let members = 0;
  for (const m of text.matchAll(STRINGS)) if (m[1] !== undefined) members++;
  if (members === parsedMembers) return [];
  return findDuplicates(text, root);
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
