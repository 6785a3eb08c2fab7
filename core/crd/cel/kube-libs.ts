// Core: Kubernetes' own CEL libraries that @marcbachmann/cel-js lacks, with kube's semantics, errors and
// runtime costs (k8s.io/apiserver pkg/cel/library ip.go, cidr.go, urls.go, quantity.go, format.go,
// semverlib.go, cost.go CallCost; cel-go ext/sets.go): ip()/isIP() and the net.IP accessors,
// cidr()/isCIDR() and containment, url()/isURL() and its getters, quantity()/isQuantity() with arithmetic
// and comparison, format.<name>()/format.named() and validate(), sets.contains/equivalent/intersects, and
// semver()/isSemver() (kube 1.33's library: a 1.32 server refuses it, this one evaluates it).
// Each call charges its cost before doing the work, so nothing exceeds the per-call limit unpaid.

import { Environment, Optional } from '@marcbachmann/cel-js';
import { compareQuantity, int64Amount, parseQuantity, QuantityError, type Quantity } from '../../quantity';
import { labelKeyMessages, labelValueMessages, validateName } from '../../validation/names';
import { formatMatches } from '../formats';
import * as netip from './go-netip';
import * as gourl from './go-url';
import { RegexBudget } from '../../regex/budget';

type Add = (signature: string, fn: (...args: never[]) => unknown) => void;

// cel-go common/cost.go StringTraversalCostFactor.
const STRING_TRAVERSAL = 0.1;

/** cel-go's size of a string: its code points. */
function size(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

const traversal = (s: string, factor = 1) => Math.ceil(size(s) * STRING_TRAVERSAL * factor);

/** A runtime error with kube's text, as the CEL error of the call. */
class KubeCelError extends Error {}

export class IPValue {
  constructor(readonly addr: netip.Addr) {}
}

export class CIDRValue {
  constructor(readonly prefix: netip.Prefix) {}
}

export class URLValue {
  constructor(readonly url: gourl.GoUrl) {}
}

/** A resource.Quantity: its exact value, and Go's int64 form when it has one (AsInt64 reads that). */
export class QuantityValue {
  constructor(readonly exact: Quantity, readonly amount: { value: bigint; scale: number } | undefined) {}
}

export class FormatValue {
  constructor(readonly name: string, readonly validate: (s: string) => string[]) {}
}

export class SemverValue {
  constructor(readonly major: bigint, readonly minor: bigint, readonly patch: bigint, readonly pre: (string | bigint)[]) {}
}

class IPNamespace {}
class FormatNamespace {}
class SetsNamespace {}

// ---- ip and cidr (ip.go, cidr.go) ----

function parseIP(s: string): netip.Addr {
  let addr: netip.Addr;
  try {
    addr = netip.parseAddr(s);
  } catch (e) {
    throw new KubeCelError(`IP Address ${JSON.stringify(s)} parse error during conversion from string: ${(e as Error).message}`);
  }
  if (addr.zone) throw new KubeCelError(`IP address ${JSON.stringify(s)} with zone value is not allowed`);
  if (netip.is4In6(addr)) throw new KubeCelError(`IPv4-mapped IPv6 address ${JSON.stringify(s)} is not allowed`);
  return addr;
}

function parseCIDR(s: string): netip.Prefix {
  let p: netip.Prefix;
  try {
    p = netip.parsePrefix(s);
  } catch (e) {
    throw new KubeCelError(`network address parse error during conversion from string: network address parse error during conversion from string: ${(e as Error).message}`);
  }
  if (netip.is4In6(p.addr)) {
    throw new KubeCelError(`network address parse error during conversion from string: IPv4-mapped IPv6 address ${JSON.stringify(s)} is not allowed`);
  }
  return p;
}

function succeeds(fn: () => unknown): boolean {
  try {
    fn();
    return true;
  } catch (e) {
    if (e instanceof KubeCelError || e instanceof QuantityError || e instanceof gourl.GoUrlError) return false;
    throw e;
  }
}

// ---- quantity (quantity.go) ----

const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);
// Exact sums align the two exponents; a gap beyond this many digits (1e999999 + 1) is refused rather than
// computed. Not kube's (Go computes it with big integers); no real quantity comes near.
const MAX_EXPONENT_GAP = 4000;

function toQuantity(s: string): QuantityValue {
  const exact = parseQuantity(s);
  return new QuantityValue(exact, int64Amount(s));
}

function scaleUp(value: bigint, scale: number): bigint | undefined {
  if (scale > 18 && value !== 0n) return undefined;
  const v = value * 10n ** BigInt(scale);
  return v > MAX_INT64 || v < MIN_INT64 ? undefined : v;
}

// int64Amount.Add: the smaller scale wins; an overflow falls back to the exact decimal.
function addAmounts(a: { value: bigint; scale: number } | undefined, b: { value: bigint; scale: number } | undefined) {
  if (!a || !b) return undefined;
  if (b.value === 0n) return a;
  if (a.value === 0n) return b;
  const scale = Math.min(a.scale, b.scale);
  const x = scaleUp(a.value, a.scale - scale);
  const y = scaleUp(b.value, b.scale - scale);
  if (x === undefined || y === undefined) return undefined;
  const sum = x + y;
  return sum > MAX_INT64 || sum < MIN_INT64 ? undefined : { value: sum, scale };
}

function addExact(a: Quantity, b: Quantity): Quantity {
  if (b.mantissa === 0n) return { ...a, text: undefined };
  if (a.mantissa === 0n) return { ...b, format: a.mantissa === 0n ? b.format : a.format, text: undefined };
  const e = Math.min(a.exp10, b.exp10);
  if (Math.max(a.exp10, b.exp10) - e > MAX_EXPONENT_GAP) throw new KubeCelError('quantity arithmetic out of range');
  const m = a.mantissa * 10n ** BigInt(a.exp10 - e) + b.mantissa * 10n ** BigInt(b.exp10 - e);
  return { mantissa: m, exp10: e, format: a.format };
}

function quantityAdd(q: QuantityValue, o: QuantityValue): QuantityValue {
  return new QuantityValue(addExact(q.exact, o.exact), addAmounts(q.amount, o.amount));
}

function negate(q: QuantityValue): QuantityValue {
  return new QuantityValue({ ...q.exact, mantissa: -q.exact.mantissa, text: undefined }, q.amount && { value: -q.amount.value, scale: q.amount.scale });
}

function fromInt(n: bigint): QuantityValue {
  return new QuantityValue({ mantissa: n, exp10: 0, format: 'DecimalExponent' }, { value: n, scale: 0 });
}

/** Quantity.AsInt64: only an int64 amount whose scale is not negative, within int64. */
function asInt64(q: QuantityValue): bigint | undefined {
  if (!q.amount) return undefined;
  if (q.amount.scale === 0) return q.amount.value;
  if (q.amount.scale < 0) return undefined;
  return scaleUp(q.amount.value, q.amount.scale);
}

function approximateFloat(q: QuantityValue): number {
  if (q.amount) return Number(q.amount.value) * 10 ** q.amount.scale;
  return Number(q.exact.mantissa) * 10 ** q.exact.exp10;
}

// ---- format (format.go) ----

const formats: Record<string, FormatValue> = {};
function defineFormat(key: string, name: string, validate: (s: string) => string[]): void {
  formats[key] = new FormatValue(name, validate);
}
defineFormat('dns1123Label', 'DNS1123Label', (s) => validateName('dns1123Label', s, false));
defineFormat('dns1123Subdomain', 'DNS1123Subdomain', (s) => validateName('dns1123Subdomain', s, false));
defineFormat('dns1035Label', 'DNS1035Label', (s) => validateName('dns1035Label', s, false));
defineFormat('qualifiedName', 'QualifiedName', labelKeyMessages);
defineFormat('dns1123LabelPrefix', 'DNS1123LabelPrefix', (s) => validateName('dns1123Label', s, true));
defineFormat('dns1123SubdomainPrefix', 'DNS1123SubdomainPrefix', (s) => validateName('dns1123Subdomain', s, true));
defineFormat('dns1035LabelPrefix', 'DNS1035LabelPrefix', (s) => validateName('dns1035Label', s, true));
defineFormat('labelValue', 'LabelValue', labelValueMessages);
defineFormat('uri', 'URI', (s) => {
  try {
    gourl.parseRequestURI(s);
    return [];
  } catch (e) {
    return [(e as Error).message];
  }
});
const strfmt = (name: string, message: string) => (s: string) => (formatMatches(name, s, new RegexBudget()) ? [] : [message]);
defineFormat('uuid', 'uuid', strfmt('uuid', 'does not match the UUID format'));
defineFormat('byte', 'byte', strfmt('byte', 'invalid base64'));
defineFormat('date', 'date', strfmt('date', 'invalid date'));
defineFormat('datetime', 'datetime', strfmt('datetime', 'invalid datetime'));

// Upper bounds of the formats' regular expressions (format.go MaxRegexSize), for the validate() cost.
const FORMAT_REGEX_SIZE: Record<string, number> = {
  DNS1123Label: 30, DNS1123Subdomain: 60, DNS1035Label: 30, QualifiedName: 60, DNS1123LabelPrefix: 30,
  DNS1123SubdomainPrefix: 60, DNS1035LabelPrefix: 30, LabelValue: 40, URI: 1500, uuid: 78, byte: 83, date: 80, datetime: 80,
};
// cel-go common/cost.go RegexStringLengthCostFactor.
const REGEX_STRING_LENGTH = 0.25;

// ---- semver (semverlib.go, blang/semver v4 Parse and Compare) ----

function parseSemver(s: string): SemverValue {
  if (!s) throw new KubeCelError('Version string empty');
  const parts = s.split('.');
  if (parts.length < 3) throw new KubeCelError('No Major.Minor.Patch elements found');
  const [majorText, minorText] = parts;
  let patchText = parts.slice(2).join('.');
  const num = (text: string, what: string): bigint => {
    if (!/^[0-9]*$/.test(text)) throw new KubeCelError(`Invalid character(s) found in ${what} number ${JSON.stringify(text)}`);
    if (text.length > 1 && text[0] === '0') throw new KubeCelError(`${what[0].toUpperCase()}${what.slice(1)} number must not contain leading zeroes ${JSON.stringify(text)}`);
    if (!text) throw new KubeCelError('strconv.ParseUint: parsing "": invalid syntax');
    // More than 20 digits is past uint64 before any BigInt work on a long string.
    const v = text.length > 20 ? 1n << 64n : BigInt(text);
    if (v > 18446744073709551615n) throw new KubeCelError(`strconv.ParseUint: parsing ${JSON.stringify(text)}: value out of range`);
    return v;
  };
  const major = num(majorText, 'major');
  const minor = num(minorText, 'minor');
  let build: string[] = [];
  let pre: string[] = [];
  const plus = patchText.indexOf('+');
  if (plus >= 0) {
    build = patchText.slice(plus + 1).split('.');
    patchText = patchText.slice(0, plus);
  }
  const dash = patchText.indexOf('-');
  if (dash >= 0) {
    pre = patchText.slice(dash + 1).split('.');
    patchText = patchText.slice(0, dash);
  }
  const patch = num(patchText, 'patch');
  const prerelease = pre.map((p): string | bigint => {
    if (!p) throw new KubeCelError('Prerelease is empty');
    if (/^[0-9]+$/.test(p)) {
      if (p.length > 1 && p[0] === '0') throw new KubeCelError(`Numeric PreRelease version must not contain leading zeroes ${JSON.stringify(p)}`);
      if (p.length > 20 || BigInt(p) > 18446744073709551615n) throw new KubeCelError(`strconv.ParseUint: parsing ${JSON.stringify(p)}: value out of range`);
      return BigInt(p);
    }
    if (!/^[0-9A-Za-z-]+$/.test(p)) throw new KubeCelError(`Invalid character(s) found in prerelease ${JSON.stringify(p)}`);
    return p;
  });
  for (const b of build) {
    if (!b) throw new KubeCelError('Build meta data is empty');
    if (!/^[0-9A-Za-z-]+$/.test(b)) throw new KubeCelError(`Invalid character(s) found in build meta data ${JSON.stringify(b)}`);
  }
  return new SemverValue(major, minor, patch, prerelease);
}

function compareSemver(a: SemverValue, b: SemverValue): number {
  for (const k of ['major', 'minor', 'patch'] as const) if (a[k] !== b[k]) return a[k] > b[k] ? 1 : -1;
  if (!a.pre.length && !b.pre.length) return 0;
  if (!a.pre.length) return 1;
  if (!b.pre.length) return -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i];
    const y = b.pre[i];
    if (x === y) continue;
    if (typeof x === 'bigint' && typeof y === 'bigint') return x > y ? 1 : -1;
    if (typeof x === 'bigint') return -1;
    if (typeof y === 'bigint') return 1;
    return x > y ? 1 : -1;
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length > b.pre.length ? 1 : -1;
}

/**
 * Registers the libraries on `env`. `add` registers a function (keeping the library's own where one
 * exists), `charge` adds cost units to the running evaluation, `same` is CEL equality (lists' contains).
 */
export function registerKubeLibraries(env: Environment, add: Add, charge: (cost: number) => void, same: (a: unknown, b: unknown) => boolean): void {
  env.registerType('net.IP', IPValue);
  env.registerType('net.CIDR', CIDRValue);
  env.registerType('kubernetes.URL', URLValue);
  env.registerType('kubernetes.Quantity', QuantityValue);
  env.registerType('kubernetes.NamedFormat', FormatValue);
  env.registerType('kubernetes.Semver', SemverValue);
  env.registerType('IPNamespace', IPNamespace);
  env.registerType('FormatNamespace', FormatNamespace);
  env.registerType('SetsNamespace', SetsNamespace);
  env.registerConstant('ip', 'IPNamespace', new IPNamespace());
  env.registerConstant('format', 'FormatNamespace', new FormatNamespace());
  env.registerConstant('sets', 'SetsNamespace', new SetsNamespace());
  const nominal = () => charge(1);

  // ip.go
  add('ip(string): net.IP', (s: string) => (charge(traversal(s)), new IPValue(parseIP(s))));
  add('isIP(string): bool', (s: string) => (charge(traversal(s)), succeeds(() => parseIP(s))));
  add('IPNamespace.isCanonical(string): bool', (_: IPNamespace, s: string) => {
    charge(traversal(s, 2));
    return netip.formatAddr(parseIP(s)) === s;
  });
  add('net.IP.family(): int', (ip: IPValue) => (nominal(), netip.is4(ip.addr) ? 4n : 6n));
  add('net.IP.isUnspecified(): bool', (ip: IPValue) => (nominal(), netip.isUnspecified(ip.addr)));
  add('net.IP.isLoopback(): bool', (ip: IPValue) => (nominal(), netip.isLoopback(ip.addr)));
  add('net.IP.isLinkLocalMulticast(): bool', (ip: IPValue) => (nominal(), netip.isLinkLocalMulticast(ip.addr)));
  add('net.IP.isLinkLocalUnicast(): bool', (ip: IPValue) => (nominal(), netip.isLinkLocalUnicast(ip.addr)));
  add('net.IP.isGlobalUnicast(): bool', (ip: IPValue) => (nominal(), netip.isGlobalUnicast(ip.addr)));
  add('string(net.IP): string', (ip: IPValue) => netip.formatAddr(ip.addr));
  env.registerOperator('net.IP == net.IP', (a: IPValue, b: IPValue) => (nominal(), netip.sameAddr(a.addr, b.addr)));

  // cidr.go
  add('cidr(string): net.CIDR', (s: string) => (charge(traversal(s)), new CIDRValue(parseCIDR(s))));
  add('isCIDR(string): bool', (s: string) => (charge(traversal(s)), succeeds(() => parseCIDR(s))));
  const containsIPCost = (c: CIDRValue, other?: string) => {
    const cidrSize = size(netip.formatPrefix(c.prefix));
    charge(Math.ceil(2 * cidrSize * STRING_TRAVERSAL) + (other === undefined ? 0 : traversal(other)));
  };
  add('net.CIDR.containsIP(string): bool', (c: CIDRValue, s: string) => (containsIPCost(c, s), netip.prefixContains(c.prefix, parseIP(s))));
  add('net.CIDR.containsIP(net.IP): bool', (c: CIDRValue, ip: IPValue) => (containsIPCost(c), netip.prefixContains(c.prefix, ip.addr)));
  const containsCIDR = (c: CIDRValue, o: CIDRValue) => netip.prefixOverlaps(c.prefix, o.prefix) && c.prefix.bits <= o.prefix.bits;
  const containsCIDRCost = (c: CIDRValue, other?: string) => {
    const cidrSize = size(netip.formatPrefix(c.prefix));
    charge(Math.ceil(2 * cidrSize * STRING_TRAVERSAL) + Math.ceil(cidrSize * STRING_TRAVERSAL) + 1 + (other === undefined ? 0 : traversal(other)));
  };
  add('net.CIDR.containsCIDR(string): bool', (c: CIDRValue, s: string) => (containsCIDRCost(c, s), containsCIDR(c, new CIDRValue(parseCIDR(s)))));
  add('net.CIDR.containsCIDR(net.CIDR): bool', (c: CIDRValue, o: CIDRValue) => (containsCIDRCost(c), containsCIDR(c, o)));
  add('net.CIDR.ip(): net.IP', (c: CIDRValue) => (nominal(), new IPValue(c.prefix.addr)));
  add('net.CIDR.prefixLength(): int', (c: CIDRValue) => (nominal(), BigInt(c.prefix.bits)));
  add('net.CIDR.masked(): net.CIDR', (c: CIDRValue) => (nominal(), new CIDRValue(netip.masked(c.prefix))));
  add('string(net.CIDR): string', (c: CIDRValue) => netip.formatPrefix(c.prefix));
  env.registerOperator('net.CIDR == net.CIDR', (a: CIDRValue, b: CIDRValue) => (nominal(), netip.samePrefix(a.prefix, b.prefix)));

  // urls.go: url() checks ParseRequestURI, then keeps Parse's result.
  add('url(string): kubernetes.URL', (s: string) => {
    charge(traversal(s));
    try {
      gourl.parseRequestURI(s);
      return new URLValue(gourl.parseURL(s));
    } catch (e) {
      throw new KubeCelError(`URL parse error during conversion from string: ${(e as Error).message}`);
    }
  });
  add('isURL(string): bool', (s: string) => (charge(traversal(s)), succeeds(() => gourl.parseRequestURI(s))));
  add('kubernetes.URL.getScheme(): string', (u: URLValue) => (nominal(), u.url.scheme));
  add('kubernetes.URL.getHost(): string', (u: URLValue) => (nominal(), u.url.host));
  add('kubernetes.URL.getHostname(): string', (u: URLValue) => (nominal(), gourl.hostname(u.url)));
  add('kubernetes.URL.getPort(): string', (u: URLValue) => (nominal(), gourl.port(u.url)));
  add('kubernetes.URL.getEscapedPath(): string', (u: URLValue) => (nominal(), gourl.escapedPath(u.url)));
  add('kubernetes.URL.getQuery(): map<string, list<string>>', (u: URLValue) => {
    nominal();
    const out = new Map<string, string[]>();
    for (const [k, v] of gourl.query(u.url)) out.set(k, v);
    return out;
  });
  env.registerOperator('kubernetes.URL == kubernetes.URL', (a: URLValue, b: URLValue) => (nominal(), gourl.formatURL(a.url) === gourl.formatURL(b.url)));

  // quantity.go
  add('quantity(string): kubernetes.Quantity', (s: string) => {
    charge(traversal(s));
    try {
      return toQuantity(s);
    } catch (e) {
      if (e instanceof QuantityError) throw new KubeCelError(e.message);
      throw e;
    }
  });
  add('isQuantity(string): bool', (s: string) => (charge(traversal(s)), succeeds(() => parseQuantity(s))));
  add('kubernetes.Quantity.sign(): int', (q: QuantityValue) => (nominal(), BigInt(q.exact.mantissa > 0n ? 1 : q.exact.mantissa < 0n ? -1 : 0)));
  add('kubernetes.Quantity.isGreaterThan(kubernetes.Quantity): bool', (a: QuantityValue, b: QuantityValue) => (nominal(), compareQuantity(a.exact, b.exact) === 1));
  add('kubernetes.Quantity.isLessThan(kubernetes.Quantity): bool', (a: QuantityValue, b: QuantityValue) => (nominal(), compareQuantity(a.exact, b.exact) === -1));
  add('kubernetes.Quantity.compareTo(kubernetes.Quantity): int', (a: QuantityValue, b: QuantityValue) => (nominal(), BigInt(compareQuantity(a.exact, b.exact))));
  add('kubernetes.Quantity.asApproximateFloat(): double', (q: QuantityValue) => (nominal(), approximateFloat(q)));
  add('kubernetes.Quantity.isInteger(): bool', (q: QuantityValue) => (nominal(), asInt64(q) !== undefined));
  add('kubernetes.Quantity.asInteger(): int', (q: QuantityValue) => {
    nominal();
    const v = asInt64(q);
    if (v === undefined) throw new KubeCelError('cannot convert value to integer');
    return v;
  });
  add('kubernetes.Quantity.add(kubernetes.Quantity): kubernetes.Quantity', (a: QuantityValue, b: QuantityValue) => (nominal(), quantityAdd(a, b)));
  add('kubernetes.Quantity.add(int): kubernetes.Quantity', (a: QuantityValue, n: bigint) => (nominal(), quantityAdd(a, fromInt(n))));
  add('kubernetes.Quantity.sub(kubernetes.Quantity): kubernetes.Quantity', (a: QuantityValue, b: QuantityValue) => (nominal(), quantityAdd(a, negate(b))));
  add('kubernetes.Quantity.sub(int): kubernetes.Quantity', (a: QuantityValue, n: bigint) => (nominal(), quantityAdd(a, fromInt(-n))));
  env.registerOperator('kubernetes.Quantity == kubernetes.Quantity', (a: QuantityValue, b: QuantityValue) => (nominal(), compareQuantity(a.exact, b.exact) === 0));

  // format.go
  for (const [key, f] of Object.entries(formats)) add(`FormatNamespace.${key}(): kubernetes.NamedFormat`, () => f);
  add('FormatNamespace.named(string): optional<kubernetes.NamedFormat>', (_: FormatNamespace, name: string) => {
    nominal();
    return Object.hasOwn(formats, name) ? Optional.of(formats[name]) : Optional.none();
  });
  add('kubernetes.NamedFormat.validate(string): optional<list<string>>', (f: FormatValue, s: string) => {
    charge(Math.ceil((1 + size(s)) * STRING_TRAVERSAL) * Math.ceil((FORMAT_REGEX_SIZE[f.name] ?? 100) * REGEX_STRING_LENGTH));
    const errs = f.validate(s);
    return errs.length ? Optional.of(errs) : Optional.none();
  });
  env.registerOperator('kubernetes.NamedFormat == kubernetes.NamedFormat', (a: FormatValue, b: FormatValue) => (nominal(), a.name === b.name));

  // cel-go ext/sets.go: cost 1 + |a|·|b| (twice that for equivalent), charged before the quadratic work.
  const contains = (list: unknown[], sub: unknown[]) => sub.every((x) => list.some((y) => same(x, y)));
  add('SetsNamespace.contains(list, list): bool', (_: SetsNamespace, a: unknown[], b: unknown[]) => (charge(1 + a.length * b.length), contains(a, b)));
  add('SetsNamespace.equivalent(list, list): bool', (_: SetsNamespace, a: unknown[], b: unknown[]) => (charge(1 + 2 * a.length * b.length), contains(a, b) && contains(b, a)));
  add('SetsNamespace.intersects(list, list): bool', (_: SetsNamespace, a: unknown[], b: unknown[]) => (charge(1 + a.length * b.length), a.some((x) => b.some((y) => same(x, y)))));

  // semverlib.go
  add('semver(string): kubernetes.Semver', (s: string) => (charge(traversal(s)), parseSemver(s)));
  add('isSemver(string): bool', (s: string) => (charge(traversal(s)), succeeds(() => parseSemver(s))));
  add('kubernetes.Semver.major(): int', (v: SemverValue) => (nominal(), v.major));
  add('kubernetes.Semver.minor(): int', (v: SemverValue) => (nominal(), v.minor));
  add('kubernetes.Semver.patch(): int', (v: SemverValue) => (nominal(), v.patch));
  add('kubernetes.Semver.isGreaterThan(kubernetes.Semver): bool', (a: SemverValue, b: SemverValue) => (nominal(), compareSemver(a, b) === 1));
  add('kubernetes.Semver.isLessThan(kubernetes.Semver): bool', (a: SemverValue, b: SemverValue) => (nominal(), compareSemver(a, b) === -1));
  add('kubernetes.Semver.compareTo(kubernetes.Semver): int', (a: SemverValue, b: SemverValue) => (nominal(), BigInt(compareSemver(a, b))));
  env.registerOperator('kubernetes.Semver == kubernetes.Semver', (a: SemverValue, b: SemverValue) => (nominal(), compareSemver(a, b) === 0));

  // cel-go types.Optional.Equal: two optionals of any element types compare (`validate(s) ==
  // optional.none()`, kube's own format tests); an optional never equals null, yet the comparison
  // compiles (Gateway API's XBackend rule `format.dns1123Label().validate(self) == null`).
  const optionalEqual = (a: Optional, b: Optional) => (a.hasValue() ? b.hasValue() && same(a.value(), b.value()) : !b.hasValue());
  for (const [sig, fn] of [
    ['optional<dyn> == optional<dyn>', optionalEqual],
    ['optional<dyn> == null', () => false],
    ['null == optional<dyn>', () => false],
  ] as const) {
    try {
      env.registerOperator(sig, fn as (a: unknown, b: unknown) => boolean);
    } catch {
      // the library already defines it
    }
  }
}
