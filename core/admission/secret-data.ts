// Canonical layer admission: a Secret's write-only `stringData` (core/v1 conversion
// Convert_v1_Secret_To_core_Secret): each entry is stored base64-encoded in `data`, overriding a key
// of the same name there, and `stringData` itself is never stored or returned.

import type { KubeObject } from '../object-meta';

type Obj = Record<string, unknown>;

export function mergeStringData(secret: KubeObject): void {
  const stringData = secret.stringData;
  if (stringData === undefined) return;
  delete secret.stringData;
  if (typeof stringData !== 'object' || stringData === null || Array.isArray(stringData)) return;
  const entries = Object.entries(stringData as Obj);
  if (entries.length === 0) return;
  const data: Obj = typeof secret.data === 'object' && secret.data !== null && !Array.isArray(secret.data) ? { ...(secret.data as Obj) } : {};
  for (const [k, v] of entries) data[k] = base64(String(v));
  secret.data = data;
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  // Chunks keep String.fromCharCode's argument list short for large values.
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
