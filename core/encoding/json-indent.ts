// Core: compact JSON text re-indented as encoding/json's MarshalIndent(v, "", "  ") writes it (and JSON.stringify
// with two spaces): one pass over the text, no parse and no recursion, in pieces. Indentation grows with depth, so
// a deeply nested object is far larger indented than compact; the pieces let an answer be streamed, not held.

const INDENT = '  ';

/** `json` (valid JSON) indented, in pieces of about `chunkChars`. */
export function* indentedJson(json: string, chunkChars = 64 * 1024): Generator<string> {
  let out = '';
  let depth = 0;
  let start = 0; // the start of the run of characters copied as they are
  const newline = () => '\n' + INDENT.repeat(depth);
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22) {
      // A string: copied whole, escapes included.
      for (i++; i < json.length; i++) {
        const d = json.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
      continue;
    }
    let insert: string | undefined;
    let skip = 0;
    if (c === 0x7b || c === 0x5b) {
      let j = i + 1;
      while (isSpace(json.charCodeAt(j))) j++;
      const close = c === 0x7b ? 0x7d : 0x5d;
      if (json.charCodeAt(j) === close) {
        insert = c === 0x7b ? '{}' : '[]';
        skip = j - i;
      } else {
        depth++;
        insert = String.fromCharCode(c) + newline();
      }
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      insert = newline() + String.fromCharCode(c);
    } else if (c === 0x2c) insert = ',' + newline();
    else if (c === 0x3a) insert = ': ';
    else if (isSpace(c)) insert = '';
    if (insert === undefined) continue;
    out += json.slice(start, i) + insert;
    i += skip;
    start = i + 1;
    if (out.length >= chunkChars) {
      yield out;
      out = '';
    }
  }
  out += json.slice(start);
  if (out) yield out;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
