// Core: IP addresses and prefixes as Go's net/netip parses and prints them (ParseAddr, ParsePrefix,
// Addr.String in RFC 5952 form, the Is* predicates), for kube's CEL ip and cidr libraries
// (k8s.io/apiserver pkg/cel/library ip.go, cidr.go). Strict where netip is strict: no leading zeros in
// IPv4 octets, no zone in a prefix. One pass over the text; inputs are bounded by the caller's cost.

export interface Addr {
  /** 4 bytes for IPv4, 16 for IPv6 (an IPv4-mapped IPv6 address stays 16). */
  bytes: number[];
  zone: string;
}

export class NetipError extends Error {}

function addrError(input: string, msg: string, at?: string): NetipError {
  return new NetipError(at === undefined ? `ParseAddr(${JSON.stringify(input)}): ${msg}` : `ParseAddr(${JSON.stringify(input)}): ${msg} (at ${JSON.stringify(at)})`);
}

/** netip.ParseAddr: an IPv4 or IPv6 address (with an optional zone), or a NetipError with Go's text. */
export function parseAddr(s: string): Addr {
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '.') return { bytes: parseV4(s, s), zone: '' };
    if (c === ':') return parseV6(s);
    if (c === '%') throw addrError(s, 'missing IPv6 address');
  }
  throw addrError(s, 'unable to parse IP');
}

function parseV4(s: string, input: string): number[] {
  const out: number[] = [];
  let val = 0;
  let digits = 0;
  let leadingZero = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits === 1 && leadingZero) throw addrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + (c - 48);
      digits++;
      if (val > 255) throw addrError(input, 'IPv4 field has value >255');
      if (digits === 1 && c === 48) leadingZero = true;
    } else if (c === 46) {
      if (digits === 0) throw addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (out.length === 3) throw addrError(input, 'IPv4 address too long');
      out.push(val);
      val = 0;
      digits = 0;
      leadingZero = false;
    } else throw addrError(input, 'unexpected character', s.slice(i));
  }
  if (digits === 0) throw addrError(input, 'IPv4 field must have at least one digit', '');
  out.push(val);
  if (out.length < 4) throw addrError(input, 'IPv4 address too short');
  return out;
}

function parseV6(input: string): Addr {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct >= 0) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (!zone) throw addrError(input, 'zone must be a non-empty string');
  }
  const groups: number[] = [];
  let ellipsis = -1;
  let i = 0;
  if (s.startsWith('::')) {
    ellipsis = 0;
    i = 2;
    if (s.length === 2) return { bytes: new Array(16).fill(0), zone };
  }
  while (i < s.length) {
    let j = i;
    let val = 0;
    while (j < s.length && j - i < 5) {
      const d = hexDigit(s.charCodeAt(j));
      if (d < 0) break;
      val = val * 16 + d;
      j++;
    }
    if (j - i > 4) throw addrError(input, 'IPv6 field has value >=2^16', s.slice(i));
    if (j === i) throw addrError(input, 'each colon-separated field must have at least one digit', s.slice(i));
    // An IPv4 tail: only in place of the final two groups.
    if (j < s.length && s[j] === '.') {
      if (ellipsis < 0 && groups.length !== 6) throw addrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s.slice(i));
      if (groups.length + 2 > 8) throw addrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s.slice(i));
      let v4: number[];
      try {
        v4 = parseV4(s.slice(i), s.slice(i));
      } catch (e) {
        throw addrError(input, (e as Error).message.replace(/^ParseAddr\("[^"]*"\): /, ''), s.slice(i));
      }
      groups.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      i = s.length;
      break;
    }
    groups.push(val);
    i = j;
    if (i === s.length) break;
    if (s[i] !== ':') throw addrError(input, 'unexpected character, want colon', s.slice(i));
    if (i + 1 === s.length) throw addrError(input, 'colon must be followed by more characters', s.slice(i));
    i++;
    if (s[i] === ':') {
      if (ellipsis >= 0) throw addrError(input, 'multiple :: in address', s.slice(i));
      ellipsis = groups.length;
      i++;
      if (i === s.length) break;
    }
    if (groups.length === 8) throw addrError(input, 'trailing garbage after address', s.slice(i));
  }
  if (groups.length > 8) throw addrError(input, 'trailing garbage after address');
  if (ellipsis < 0 && groups.length < 8) throw addrError(input, 'address string too short');
  if (ellipsis >= 0 && groups.length === 8) throw addrError(input, 'the :: must expand to at least one field of zeros');
  const full = ellipsis < 0 ? groups : [...groups.slice(0, ellipsis), ...new Array(8 - groups.length).fill(0), ...groups.slice(ellipsis)];
  const bytes: number[] = [];
  for (const g of full) bytes.push(g >> 8, g & 0xff);
  return { bytes, zone };
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

export function is4(a: Addr): boolean {
  return a.bytes.length === 4;
}

/** An IPv6 address of the form ::ffff:a.b.c.d. */
export function is4In6(a: Addr): boolean {
  return a.bytes.length === 16 && a.bytes.slice(0, 10).every((b) => b === 0) && a.bytes[10] === 0xff && a.bytes[11] === 0xff;
}

/** Addr.String(): dotted IPv4, or RFC 5952 IPv6 (the first longest run of two or more zero groups as ::). */
export function formatAddr(a: Addr): string {
  if (is4(a)) return a.bytes.join('.');
  const zone = a.zone ? `%${a.zone}` : '';
  if (is4In6(a)) return `::ffff:${a.bytes.slice(12).join('.')}${zone}`;
  const g: number[] = [];
  for (let i = 0; i < 16; i += 2) g.push((a.bytes[i] << 8) | a.bytes[i + 1]);
  let zs = -1;
  let ze = -1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i >= 2 && j - i > ze - zs) {
      zs = i;
      ze = j;
    }
  }
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (i === zs) {
      out += '::';
      i = ze - 1;
      continue;
    }
    if (i > 0 && !out.endsWith(':')) out += ':';
    out += g[i].toString(16);
  }
  return out + zone;
}

function unmapped(a: Addr): number[] {
  return is4In6(a) ? a.bytes.slice(12) : a.bytes;
}

export function isUnspecified(a: Addr): boolean {
  return a.bytes.every((b) => b === 0);
}

export function isLoopback(a: Addr): boolean {
  const b = unmapped(a);
  if (b.length === 4) return b[0] === 127;
  return b.slice(0, 15).every((x) => x === 0) && b[15] === 1;
}

export function isMulticast(a: Addr): boolean {
  const b = unmapped(a);
  return b.length === 4 ? (b[0] & 0xf0) === 0xe0 : b[0] === 0xff;
}

export function isLinkLocalUnicast(a: Addr): boolean {
  const b = unmapped(a);
  return b.length === 4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1] & 0xc0) === 0x80;
}

export function isLinkLocalMulticast(a: Addr): boolean {
  const b = unmapped(a);
  return b.length === 4 ? b[0] === 224 && b[1] === 0 && b[2] === 0 : b[0] === 0xff && (b[1] & 0x0f) === 0x02;
}

/** Addr.IsGlobalUnicast: not unspecified, broadcast, loopback, multicast or link-local (private ranges count). */
export function isGlobalUnicast(a: Addr): boolean {
  const b = unmapped(a);
  if (b.length === 4 && (b.every((x) => x === 0) || b.every((x) => x === 255))) return false;
  return !isUnspecified(a) && !isLoopback(a) && !isMulticast(a) && !isLinkLocalUnicast(a);
}

export function sameAddr(a: Addr, b: Addr): boolean {
  return a.zone === b.zone && a.bytes.length === b.bytes.length && a.bytes.every((x, i) => x === b.bytes[i]);
}

export interface Prefix {
  addr: Addr;
  bits: number;
}

/** netip.ParsePrefix: `addr/bits`, bits in decimal without sign or leading zeros, no IPv6 zone. */
export function parsePrefix(s: string): Prefix {
  const fail = (msg: string) => new NetipError(`netip.ParsePrefix(${JSON.stringify(s)}): ${msg}`);
  const slash = s.lastIndexOf('/');
  if (slash < 0) throw fail("no '/'");
  let addr: Addr;
  try {
    addr = parseAddr(s.slice(0, slash));
  } catch (e) {
    throw fail((e as Error).message);
  }
  if (!is4(addr) && addr.zone) throw fail('IPv6 zones cannot be present in a prefix');
  const bitsText = s.slice(slash + 1);
  const badBits = fail(`bad bits after slash: ${JSON.stringify(bitsText)}`);
  if (!/^[0-9]+$/.test(bitsText) || bitsText.length > 3 || (bitsText.length > 1 && bitsText[0] === '0')) {
    // strconv.Atoi accepts up to int range; longer digit strings than 3 are out of range, not malformed.
    if (/^[1-9][0-9]{3,18}$/.test(bitsText)) throw fail('prefix length out of range');
    throw badBits;
  }
  const bits = Number(bitsText);
  if (bits > addr.bytes.length * 8) throw fail('prefix length out of range');
  return { addr, bits };
}

function maskBytes(bytes: number[], bits: number): number[] {
  return bytes.map((b, i) => {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    return b & ((0xff << (8 - keep)) & 0xff);
  });
}

export function masked(p: Prefix): Prefix {
  return { addr: { bytes: maskBytes(p.addr.bytes, p.bits), zone: '' }, bits: p.bits };
}

export function formatPrefix(p: Prefix): string {
  return `${formatAddr(p.addr)}/${p.bits}`;
}

/** Prefix.Contains: same family, no zone, equal under the prefix's mask. */
export function prefixContains(p: Prefix, a: Addr): boolean {
  if (a.zone || a.bytes.length !== p.addr.bytes.length) return false;
  const m1 = maskBytes(p.addr.bytes, p.bits);
  const m2 = maskBytes(a.bytes, p.bits);
  return m1.every((b, i) => b === m2[i]);
}

/** Prefix.Overlaps: same family, equal under the shorter of the two masks. */
export function prefixOverlaps(p: Prefix, o: Prefix): boolean {
  if (p.addr.bytes.length !== o.addr.bytes.length) return false;
  const bits = Math.min(p.bits, o.bits);
  const a = maskBytes(p.addr.bytes, bits);
  const b = maskBytes(o.addr.bytes, bits);
  return a.every((x, i) => x === b[i]);
}

export function samePrefix(a: Prefix, b: Prefix): boolean {
  return a.bits === b.bits && sameAddr(a.addr, b.addr);
}
