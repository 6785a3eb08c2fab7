// Core: Go's base64.StdEncoding as encoding/json applies it to []byte fields (Secret data, ConfigMap
// binaryData): which strings it accepts, the offset it reports for the others ("illegal base64 data at
// input byte 4", base64.CorruptInputError), and the canonical text a re-encode gives.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUE[ALPHABET.charCodeAt(i)] = i;

const isNewline = (c: number) => c === 0x0a || c === 0x0d;

/** Go's message for a string StdEncoding rejects, or undefined when it decodes. */
export function base64Error(s: string): string | undefined {
  const at = corruptAt(s);
  return at === undefined ? undefined : `illegal base64 data at input byte ${at}`;
}

// decodeQuantum, quantum by quantum: padding is required, newlines are skipped anywhere.
function corruptAt(s: string): number | undefined {
  const n = s.length;
  let si = 0;
  for (;;) {
    for (let j = 0; j < 4; j++) {
      if (si === n) return j === 0 ? undefined : si - j;
      const c = s.charCodeAt(si++);
      if (c < 128 && VALUE[c] >= 0) continue;
      if (isNewline(c)) {
        j--;
        continue;
      }
      // Everything before the first bad character is ASCII, so string index = byte offset.
      if (c !== 0x3d) return si - 1;
      if (j < 2) return si - 1;
      if (j === 2) {
        while (si < n && isNewline(s.charCodeAt(si))) si++;
        if (si === n) return n;
        if (s.charCodeAt(si) !== 0x3d) return si - 1;
        si++;
      }
      while (si < n && isNewline(s.charCodeAt(si))) si++;
      return si < n ? si : undefined;
    }
  }
}

/**
 * The text Go's encoder writes back for an accepted string: newlines gone and unused trailing bits
 * cleared ("YR==" decodes to "a" and encodes as "YQ==").
 */
export function canonicalBase64(s: string): string {
  let clean = s;
  if (s.includes('\n') || s.includes('\r')) clean = s.replace(/[\r\n]/g, '');
  if (clean.length === 0) return clean;
  const pad = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  const last = VALUE[clean.charCodeAt(clean.length - 1 - pad)];
  const unused = pad === 2 ? last & 0x0f : pad === 1 ? last & 0x03 : 0;
  if (unused === 0) return clean;
  const fixed = ALPHABET[pad === 2 ? last & 0x30 : last & 0x3c];
  return clean.slice(0, clean.length - 1 - pad) + fixed + '='.repeat(pad);
}

/** Base64 of bytes given as a JSON array of numbers (Go decodes an array into []byte element-wise). */
export function encodeBytes(bytes: readonly number[]): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i];
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    out += ALPHABET[a >> 2] + ALPHABET[((a & 3) << 4) | ((b ?? 0) >> 4)];
    out += b === undefined ? '=' : ALPHABET[((b & 15) << 2) | ((c ?? 0) >> 6)];
    out += c === undefined ? '=' : ALPHABET[c & 63];
  }
  return out;
}
