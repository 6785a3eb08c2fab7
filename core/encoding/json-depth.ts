// Core: the one nesting-depth gate for JSON request bodies. JSON.parse itself copes with any depth,
// but every walker after it recurses (JSON.stringify, structuredClone, the patch appliers, field
// pruning, table rendering): a body nested 100,000 levels deep would end in a RangeError, a 500, and
// a store busy for nothing. One linear scan, run before anything recursive, refuses such a body
// with the 400 a syntax error gets.
//
// The limit: Go's encoding/json (and sigs.k8s.io/json, kube-apiserver's decoder) stops at
// maxNestingDepth = 10000 with "invalid character '{' exceeded max depth" (scanner.go
// pushParseState). V8 cannot walk that deep: in Node 20, JSON.stringify of a 10,000-deep object
// overflows the stack and structuredClone already fails near 2,000. So we keep Go's wording but stop
// at 1,000 levels — far beyond any Kubernetes object (pod specs nest about 15 deep, CRD schemas a
// few dozen) and, with every walker at most a handful of frames per level, well inside the stack.

import { goJsonSyntaxError } from '../patch/go-json-scanner';

/** The deepest nesting of objects and arrays a request body may have (Go allows 10000; see above). */
export const MAX_JSON_DEPTH = 1000;

/**
 * Go's error text when `text` nests objects/arrays deeper than `limit`, else undefined. Linear and
 * allocation-free; brackets inside strings do not count. When a syntax error comes before the
 * offending bracket, that error is the text, as Go's scanner would report it first.
 */
export function jsonDepthError(text: string, limit = MAX_JSON_DEPTH): string | undefined {
  const at = tooDeepAt(text, limit);
  if (at < 0) return undefined;
  return goJsonSyntaxError(text.slice(0, at + 1), limit) ?? `invalid character '${text[at]}' exceeded max depth`;
}

/** Index of the first opening bracket that goes past `limit`, or -1. */
function tooDeepAt(text: string, limit: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character, a quote included
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return i;
    } else if ((c === 0x7d || c === 0x5d) && depth > 0) {
      depth--;
    }
  }
  return -1;
}
