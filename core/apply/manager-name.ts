// Core (server-side apply): the field manager of a write — the `fieldManager` parameter, or for
// non-apply writes the User-Agent up to its first "/" (apiserver handlers managerOrUserAgent), which is
// how `kubectl scale` becomes "kubectl" and a Go client "Go-http-client" — and its validation
// (apimachinery meta/v1/validation ValidateFieldManager).

import { invalidValue, tooLong, type FieldCause } from '../validation/names';

export const FIELD_MANAGER_MAX_LENGTH = 128;

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
// Printable ASCII (every character of it is a letter, digit, punctuation, symbol or space) short enough:
// what nearly every write carries, accepted without a look at each character.
const SHORT_PRINTABLE_ASCII = new RegExp(`^[\\x20-\\x7e]{0,${FIELD_MANAGER_MAX_LENGTH}}$`);

export function managerOrUserAgent(fieldManager: string | undefined, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  const prefix = (userAgent ?? '').split('/')[0];
  if (SHORT_PRINTABLE_ASCII.test(prefix)) return prefix;
  let out = '';
  let bytes = 0;
  for (const ch of prefix) {
    if (!PRINTABLE.test(ch)) continue;
    const n = new TextEncoder().encode(ch).length;
    if (bytes + n > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += n;
  }
  return out;
}

export function validateFieldManager(fieldManager: string): FieldCause[] {
  const causes: FieldCause[] = [];
  if (!fieldManager || SHORT_PRINTABLE_ASCII.test(fieldManager)) return causes;
  if (new TextEncoder().encode(fieldManager).length > FIELD_MANAGER_MAX_LENGTH) causes.push(tooLong('fieldManager', FIELD_MANAGER_MAX_LENGTH));
  let i = 0;
  for (const ch of fieldManager) {
    if (!PRINTABLE.test(ch)) {
      const cp = ch.codePointAt(0)!;
      const hex = cp.toString(16).toUpperCase().padStart(4, '0');
      causes.push(invalidValue('fieldManager', fieldManager, `invalid character U+${hex} (at position ${i})`));
    }
    i += new TextEncoder().encode(ch).length;
  }
  return causes;
}
