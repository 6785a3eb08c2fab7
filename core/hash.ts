// Core: the project's one non-cryptographic hash, FNV-1a (as Go's hash/fnv), for spreading (replicas, authorizer
// shards, clusterIP picks), names (a Deployment's pod-template-hash, as kube's ComputeHash uses fnv.New32a) and
// content ids (the OpenAPI documents' ETags). Never used where an attacker's choice of input matters for security.

const OFFSET_32 = 0x811c9dc5;
const PRIME_32 = 0x01000193;

/** 32-bit FNV-1a over bytes, or over a string's UTF-8 bytes. */
export function fnv1a32(data: string | Uint8Array): number {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  let h = OFFSET_32;
  for (const b of bytes) h = Math.imul(h ^ b, PRIME_32);
  return h >>> 0;
}

/**
 * 64-bit FNV-1a over UTF-16 code units, as 16 upper-case hex digits. The product by the FNV prime (2^40 + 0x1b3) is
 * done on two 32-bit halves: a BigInt per character would cost ~100 ms on a half-megabyte document.
 */
export function fnv1a64Hex(text: string): string {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (let i = 0; i < text.length; i++) {
    lo ^= text.charCodeAt(i);
    const low = (lo >>> 0) * 0x1b3; // < 2^41: exact in a double
    hi = (Math.imul(hi, 0x1b3) + Math.floor(low / 0x1_0000_0000) + (lo << 8)) >>> 0;
    lo = low >>> 0;
  }
  return (hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0')).toUpperCase();
}
