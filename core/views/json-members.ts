// Core: rewrites the top-level members of a JSON object's text without parsing it: member names renamed, a
// member's value replaced when it is exactly a given JSON text (an apiVersion). One pass over the text: nested
// values are skipped by their depth, strings by their quotes, so a view of a stored object (core/views) costs a
// scan, not a parse and a serialization. Text that is not a JSON object comes back unchanged.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

export interface MemberRewrite {
  /** Member names as JSON text (quotes included) → the name to write instead, as JSON text. */
  names?: ReadonlyMap<string, string>;
  /** Member names as JSON text → [the value to replace, its replacement], both as JSON text. */
  values?: ReadonlyMap<string, readonly [string, string]>;
}

/** The index of the quote closing the string that opens at `start`, or -1 when it never closes. */
function stringEnd(text: string, start: number): number {
  // Jump from quote to quote (indexOf runs natively); a quote after an odd run of backslashes is escaped.
  for (let q = text.indexOf('"', start + 1); q >= 0; q = text.indexOf('"', q + 1)) {
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q;
  }
  return -1;
}

export function rewriteMembers(json: string, rewrite: MemberRewrite): string {
  let start = 0;
  while (start < json.length && json.charCodeAt(start) <= 0x20) start++;
  if (json.charCodeAt(start) !== OPEN_OBJECT) return json;
  let out = '';
  let copied = 0;
  let depth = 0;
  let expectName = false;
  let replace: readonly [string, string] | undefined; // for the value of the member just named
  for (let i = start; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(json, i);
      if (end < 0) return json;
      if (depth === 1 && expectName) {
        expectName = false;
        const name = json.slice(i, end + 1);
        const renamed = rewrite.names?.get(name);
        if (renamed !== undefined) {
          out += json.slice(copied, i) + renamed;
          copied = end + 1;
        }
        replace = rewrite.values?.get(name);
      } else if (depth === 1 && replace) {
        if (end - i + 1 === replace[0].length && json.startsWith(replace[0], i)) {
          out += json.slice(copied, i) + replace[1];
          copied = end + 1;
        }
        replace = undefined;
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++;
      if (depth === 1) expectName = true;
      else replace = undefined; // the value is not a string
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (--depth === 0) break;
    } else if (c === COMMA && depth === 1) {
      expectName = true;
      replace = undefined;
    }
  }
  return copied === 0 ? json : out + json.slice(copied);
}
