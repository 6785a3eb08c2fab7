// Core: the one place resourceVersion strings become integers and back. Parsing follows apiserver's
// APIObjectVersioner (strconv.ParseUint), so a bad value fails with etcd3 store.go's 400 text.
import { goQuote, invalidValue } from './validation/names';

/** message is the whole 400 BadRequest text, e.g. `invalid resource version: resourceVersion: Invalid value: ...`. */
export class InvalidResourceVersion extends Error {
  override readonly name = 'InvalidResourceVersion';
}

const UINT64_MAX = 2n ** 64n - 1n;

/** "", "0" and an absent value all mean 0 ("any"); otherwise a decimal uint64, leading zeros allowed. */
export function parseResourceVersion(rv: string | undefined | null): number {
  if (rv === undefined || rv === null || rv === '' || rv === '0') return 0;
  const problem = parseUintProblem(rv);
  if (problem) {
    const cause = invalidValue('resourceVersion', rv, `strconv.ParseUint: parsing ${goQuote(rv)}: ${problem}`);
    throw new InvalidResourceVersion(`invalid resource version: ${cause.field}: ${cause.message}`);
  }
  // Past 2^53 the number is approximate, but still larger than any revision we have issued.
  return Number(rv);
}

export function formatRevision(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`revision must be a non-negative safe integer, got ${n}`);
  return String(n);
}

// strconv.ParseUint checks digit by digit, so an overflow is reported even if a bad character follows.
function parseUintProblem(s: string): string | undefined {
  let n = 0n;
  for (const c of s) {
    if (c < '0' || c > '9') return 'invalid syntax';
    n = n * 10n + BigInt(c.charCodeAt(0) - 48);
    if (n > UINT64_MAX) return 'value out of range';
  }
  return undefined;
}
