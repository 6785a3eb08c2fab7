// Core: IP address checks of kube's endpoint and node validation (netutils.ParseIPSloppy semantics:
// IPv4 octets may carry leading zeros).

export function parseIPv4(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^[0-9]{1,3}$/.test(p) || Number(p) > 255) return undefined;
    out.push(Number(p));
  }
  return out;
}

/** An IPv6 address (optionally with an embedded IPv4 tail) as 8 groups, or undefined. */
export function parseIPv6(s: string): number[] | undefined {
  if (!s.includes(':')) return undefined;
  let text = s;
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const v4 = parseIPv4(last);
    if (!v4) return undefined;
    text = `${text.slice(0, lastColon + 1)}${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  if (![...head, ...rest].every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  const count = head.length + rest.length;
  if (halves.length === 1 ? count !== 8 : count > 7) return undefined;
  const hex = (g: string) => parseInt(g, 16);
  return [...head.map(hex), ...new Array(8 - count).fill(0), ...rest.map(hex)];
}

export type IPKind = 'v4' | 'v6';

export function ipKind(s: string): IPKind | undefined {
  if (parseIPv4(s)) return 'v4';
  if (parseIPv6(s)) return 'v6';
  return undefined;
}

/** ValidateNonSpecialIP's messages for a parsed address. */
export function specialIPMessages(s: string): string[] {
  const v4 = parseIPv4(s) ?? v4Mapped(parseIPv6(s));
  const msgs: string[] = [];
  if (v4) {
    if (v4.every((o) => o === 0)) msgs.push(`may not be unspecified (${s})`);
    if (v4[0] === 127) msgs.push('may not be in the loopback range (127.0.0.0/8, ::1/128)');
    if (v4[0] === 169 && v4[1] === 254) msgs.push('may not be in the link-local range (169.254.0.0/16, fe80::/10)');
    if (v4[0] === 224 && v4[1] === 0 && v4[2] === 0) msgs.push('may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)');
    return msgs;
  }
  const v6 = parseIPv6(s);
  if (!v6) return msgs;
  if (v6.every((g) => g === 0)) msgs.push(`may not be unspecified (${s})`);
  if (v6.slice(0, 7).every((g) => g === 0) && v6[7] === 1) msgs.push('may not be in the loopback range (127.0.0.0/8, ::1/128)');
  if ((v6[0] & 0xffc0) === 0xfe80) msgs.push('may not be in the link-local range (169.254.0.0/16, fe80::/10)');
  if ((v6[0] & 0xff0f) === 0xff02) msgs.push('may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)');
  return msgs;
}

function v4Mapped(v6: number[] | undefined): number[] | undefined {
  if (!v6 || !v6.slice(0, 5).every((g) => g === 0) || v6[5] !== 0xffff) return undefined;
  return [v6[6] >> 8, v6[6] & 255, v6[7] >> 8, v6[7] & 255];
}
