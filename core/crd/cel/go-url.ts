// Core: URLs as Go's net/url parses them (url.Parse and url.ParseRequestURI, Hostname, Port,
// EscapedPath, Query), for kube's CEL url library and the `uri` named format (k8s.io/apiserver
// pkg/cel/library urls.go, format.go). Errors carry Go's texts (`parse "x": invalid URI for request`).
// Linear in the input: each step is one scan.

export class GoUrlError extends Error {}

export interface GoUrl {
  scheme: string;
  opaque: string;
  /** userinfo text as written (undefined: none). */
  user?: string;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
  forceQuery: boolean;
  fragment: string;
}

type Mode = 'path' | 'pathSegment' | 'host' | 'zone' | 'userPassword' | 'queryComponent' | 'fragment';

const isAlnum = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);

// url.go shouldEscape: RFC 3986 unreserved characters, plus what each part allows unescaped.
function shouldEscape(c: string, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  if ((mode === 'host' || mode === 'zone') && "!$&'()*+,;=:[]<>\"".includes(c)) return false;
  if ('-_.~'.includes(c)) return false;
  if ('$&+,/:;=?@'.includes(c)) {
    switch (mode) {
      case 'path':
        return c === '?';
      case 'pathSegment':
        return c === '/' || c === ';' || c === ',' || c === '?';
      case 'userPassword':
        return c === '@' || c === '/' || c === '?' || c === ':';
      case 'queryComponent':
        return true;
      case 'fragment':
        return false;
      default:
        break;
    }
  }
  if (mode === 'fragment' && '!()*'.includes(c)) return false;
  return true;
}

function escapeError(s: string): GoUrlError {
  return new GoUrlError(`invalid URL escape ${JSON.stringify(s)}`);
}

/** url.go unescape: %XX sequences checked (and restricted in hosts), '+' is a space in query components. */
function unescape(s: string, mode: Mode): string {
  let n = 0;
  let hasPlus = false;
  for (let i = 0; i < s.length;) {
    const c = s[i];
    if (c === '%') {
      n++;
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) throw escapeError(s.slice(i, i + 3));
      const v = parseInt(s.slice(i + 1, i + 3), 16);
      if (mode === 'host' && v < 0x80 && s.slice(i, i + 3) !== '%25') throw escapeError(s.slice(i, i + 3));
      if (mode === 'zone' && s.slice(i, i + 3) !== '%25' && v !== 0x20 && v < 0x80 && shouldEscape(String.fromCharCode(v), 'host')) {
        throw escapeError(s.slice(i, i + 3));
      }
      i += 3;
    } else if (c === '+') {
      hasPlus = mode === 'queryComponent';
      i++;
    } else {
      if ((mode === 'host' || mode === 'zone') && c.charCodeAt(0) < 0x80 && shouldEscape(c, mode)) {
        throw new GoUrlError(`invalid character ${JSON.stringify(c)} in host name`);
      }
      i++;
    }
  }
  if (n === 0 && !hasPlus) return s;
  const src = new TextEncoder().encode(s);
  const bytes: number[] = [];
  for (let i = 0; i < src.length; i++) {
    const b = src[i];
    if (b === 0x25) {
      bytes.push(parseInt(String.fromCharCode(src[i + 1], src[i + 2]), 16));
      i += 2;
    } else if (b === 0x2b) bytes.push(mode === 'queryComponent' ? 0x20 : 0x2b);
    else bytes.push(b);
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

function escape(s: string, mode: Mode): string {
  let out = '';
  for (const byte of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(byte);
    if (c === ' ' && mode === 'queryComponent') out += '+';
    else if (byte >= 0x80 || shouldEscape(c, mode)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    else out += c;
  }
  return out;
}

function getScheme(raw: string): { scheme: string; rest: string } {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue;
    if ((c >= '0' && c <= '9') || c === '+' || c === '-' || c === '.') {
      if (i === 0) return { scheme: '', rest: raw };
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new GoUrlError('missing protocol scheme');
      return { scheme: raw.slice(0, i), rest: raw.slice(i + 1) };
    }
    return { scheme: '', rest: raw };
  }
  return { scheme: '', rest: raw };
}

function validOptionalPort(port: string): boolean {
  if (port === '') return true;
  return /^:[0-9]*$/.test(port);
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new GoUrlError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new GoUrlError(`invalid port ${JSON.stringify(colonPort)} after host`);
    const zone = host.slice(0, i).indexOf('%25');
    if (zone >= 0) return unescape(host.slice(0, zone), 'host') + unescape(host.slice(zone, i), 'zone') + unescape(host.slice(i), 'host');
  } else {
    const i = host.lastIndexOf(':');
    if (i >= 0) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort)) throw new GoUrlError(`invalid port ${JSON.stringify(colonPort)} after host`);
    }
  }
  return unescape(host, 'host');
}

function validUserinfo(s: string): boolean {
  for (const c of s) {
    if (isAlnum(c)) continue;
    if ("-._:~!$&'()*+,;=%@".includes(c)) continue;
    return false;
  }
  return true;
}

function parseAuthority(authority: string): { user?: string; host: string } {
  const at = authority.lastIndexOf('@');
  const host = parseHost(at < 0 ? authority : authority.slice(at + 1));
  if (at < 0) return { host };
  const userinfo = authority.slice(0, at);
  if (!validUserinfo(userinfo)) throw new GoUrlError('net/url: invalid userinfo');
  for (const part of userinfo.split(':').slice(0, 2)) unescape(part, 'userPassword');
  return { user: userinfo, host };
}

function parse(raw: string, viaRequest: boolean): GoUrl {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new GoUrlError('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new GoUrlError('empty url');
  const url: GoUrl = { scheme: '', opaque: '', host: '', path: '', rawPath: '', rawQuery: '', forceQuery: false, fragment: '' };
  if (raw === '*') {
    url.path = '*';
    return url;
  }
  let { scheme, rest } = getScheme(raw);
  url.scheme = scheme.toLowerCase();
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) {
    url.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      url.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (url.scheme !== '') {
      url.opaque = rest;
      return url;
    }
    if (viaRequest) throw new GoUrlError('invalid URI for request');
    const slash = rest.indexOf('/');
    const segment = slash < 0 ? rest : rest.slice(0, slash);
    if (segment.includes(':')) throw new GoUrlError('first path segment in URL cannot contain colon');
  }
  if ((url.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    const a = parseAuthority(authority);
    url.user = a.user;
    url.host = a.host;
  }
  url.path = unescape(rest, 'path');
  url.rawPath = escape(url.path, 'path') === rest ? '' : rest;
  return url;
}

function wrap<T>(raw: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof GoUrlError) throw new GoUrlError(`parse ${JSON.stringify(raw)}: ${e.message}`);
    throw e;
  }
}

/** url.ParseRequestURI: an absolute URI or an absolute path (no fragment split). */
export function parseRequestURI(raw: string): GoUrl {
  return wrap(raw, () => parse(raw, true));
}

/** url.Parse: any URI reference, with a #fragment cut off first. */
export function parseURL(raw: string): GoUrl {
  const hash = raw.indexOf('#');
  const u = hash < 0 ? raw : raw.slice(0, hash);
  const url = wrap(u, () => parse(u, false));
  if (hash >= 0) url.fragment = wrap(raw, () => unescape(raw.slice(hash + 1), 'fragment'));
  return url;
}

function splitHostPort(hostPort: string): { host: string; port: string } {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && validOptionalPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host, port };
}

export function hostname(u: GoUrl): string {
  return splitHostPort(u.host).host;
}

export function port(u: GoUrl): string {
  return splitHostPort(u.host).port;
}

function validEncoded(s: string, mode: Mode): boolean {
  for (const c of s) {
    if ("!$&'()*+,;=:@[]%".includes(c)) continue;
    if (c.charCodeAt(0) >= 0x80 || shouldEscape(c, mode)) return false;
  }
  return true;
}

/** URL.EscapedPath: the raw path when it is a valid encoding of the path, else the path escaped. */
export function escapedPath(u: GoUrl): string {
  if (u.rawPath && validEncoded(u.rawPath, 'path')) {
    try {
      if (unescape(u.rawPath, 'path') === u.path) return u.rawPath;
    } catch {
      // fall through
    }
  }
  if (u.path === '*') return '*';
  return escape(u.path, 'path');
}

/** URL.Query: key → values, malformed pairs (and pairs with a bare ';') skipped, as ParseQuery does. */
export function query(u: GoUrl): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of u.rawQuery.split('&')) {
    if (!pair || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    try {
      const key = unescape(eq < 0 ? pair : pair.slice(0, eq), 'queryComponent');
      const value = unescape(eq < 0 ? '' : pair.slice(eq + 1), 'queryComponent');
      const list = out.get(key);
      if (list) list.push(value);
      else out.set(key, [value]);
    } catch {
      // a malformed escape drops the pair
    }
  }
  return out;
}

/** URL.String(), for equality of two parsed URLs. */
export function formatURL(u: GoUrl): string {
  let out = u.scheme ? `${u.scheme}:` : '';
  if (u.opaque) out += u.opaque;
  else {
    if (u.scheme || u.host || u.user !== undefined) {
      if (u.host || u.path || u.user !== undefined) out += '//';
      if (u.user !== undefined) out += `${u.user}@`;
      if (u.host) out += escape(u.host, 'host');
    }
    const p = escapedPath(u);
    if (p && p[0] !== '/' && u.host) out += '/';
    if (!out) {
      const slash = p.indexOf('/');
      if ((slash < 0 ? p : p.slice(0, slash)).includes(':')) out += './';
    }
    out += p;
  }
  if (u.forceQuery || u.rawQuery) out += `?${u.rawQuery}`;
  if (u.fragment) out += `#${escape(u.fragment, 'fragment')}`;
  return out;
}
