// Core: one imported HMAC-SHA256 key per secret. Importing a raw key costs a WebCrypto call per request
// (bench/profile.ts apf: `importKey` ~0.8% of the front door's thread while a ServiceAccount flooded, the same again
// for every internal token the control loops present); the CryptoKey itself is kept, keyed by the secret's bytes
// (the settings hold one Uint8Array per configured secret), never a promise (a promise belongs to the request that
// made it). Bounded: a WeakMap entry lives only as long as the bytes it is keyed by.

const imported = new WeakMap<Uint8Array, CryptoKey>();

/** The HMAC-SHA256 CryptoKey (sign and verify) of `secret`, imported once per secret. */
export async function hmacKey(secret: Uint8Array): Promise<CryptoKey> {
  const known = imported.get(secret);
  if (known) return known;
  const key = await crypto.subtle.importKey('raw', secret as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  imported.set(secret, key);
  return key;
}
