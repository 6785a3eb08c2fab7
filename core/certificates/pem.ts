// Core: PEM blocks (RFC 7468) as Go's encoding/pem reads and writes them: the first block of a text, its type
// and DER bytes (headers refused, which certificates and keys never carry), and a block written with 64-column
// base64 lines. Linear in the text: one indexOf per marker, base64 decoded once.

export interface PemBlock {
  type: string;
  der: Uint8Array;
}

export function base64ToBytes(b64: string): Uint8Array | undefined {
  let bin: string;
  try {
    bin = atob(b64);
  } catch {
    return undefined;
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function bytesToBase64(b: Uint8Array): string {
  let s = '';
  // In chunks: String.fromCharCode's arguments are bounded.
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
}

/** The first PEM block of `text`, or undefined when there is none that decodes. */
export function decodePem(text: string): PemBlock | undefined {
  const begin = text.indexOf('-----BEGIN ');
  if (begin < 0) return undefined;
  const typeEnd = text.indexOf('-----', begin + 11);
  if (typeEnd < 0) return undefined;
  const type = text.slice(begin + 11, typeEnd);
  if (type.includes('\n')) return undefined;
  const endMarker = `-----END ${type}-----`;
  const end = text.indexOf(endMarker, typeEnd + 5);
  if (end < 0) return undefined;
  const body = text.slice(typeEnd + 5, end);
  if (body.includes(':')) return undefined; // headers (Proc-Type: …): not for these blocks
  const der = base64ToBytes(body.replace(/[ \t\r\n]/g, ''));
  return der ? { type, der } : undefined;
}

export function encodePem(type: string, der: Uint8Array): string {
  const b64 = bytesToBase64(der);
  let lines = '';
  for (let i = 0; i < b64.length; i += 64) lines += `${b64.slice(i, i + 64)}\n`;
  return `-----BEGIN ${type}-----\n${lines}-----END ${type}-----\n`;
}
