// Core: IANA time zones through Intl (the runtime's tz database), as Go's time.LoadLocation gives the CronJob
// controller: an instant's wall-clock fields in a zone, and the instant of a wall-clock time. Wall-clock times
// are carried as "wall ms": the ms since the epoch the same fields would have in UTC.

const MINUTE = 60_000;

// Formatters are costly to build; zone names come from users, so the cache is bounded (a full one is cleared).
const MAX_FORMATTERS = 64;
const formatters = new Map<string, Intl.DateTimeFormat>();

/** UTC and the empty name (time.LoadLocation("") is UTC) need no tz data. */
export const isUtc = (zone: string | undefined): boolean => zone === undefined || zone === '' || zone === 'UTC';

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f) return f;
  f = new Intl.DateTimeFormat('en-US', {
    timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
  });
  if (formatters.size >= MAX_FORMATTERS) formatters.clear();
  formatters.set(zone, f);
  return f;
}

/**
 * The error time.LoadLocation gives for `zone`, or undefined when it loads. Go reads zone files by name, so a
 * name differing only in case from the canonical one is unknown there although Intl accepts it; "Local" is the
 * machine's zone in Go, which the API refuses for CronJobs anyway.
 */
export function timeZoneError(zone: string): string | undefined {
  if (isUtc(zone) || zone === 'Local') return undefined;
  // Go refuses names that could escape the zoneinfo directory; Intl has no such names either.
  if (zone.length > 255 || zone.includes('..') || zone.startsWith('/') || zone.includes('\\')) return `unknown time zone ${zone}`;
  let resolved: string;
  try {
    resolved = formatter(zone).resolvedOptions().timeZone;
  } catch {
    return `unknown time zone ${zone}`;
  }
  if (resolved !== zone && resolved.toLowerCase() === zone.toLowerCase()) return `unknown time zone ${zone}`;
  return undefined;
}

/** The wall-clock time (wall ms, truncated to the second) of `instant` in `zone`. */
export function wallOf(instant: number, zone: string | undefined): number {
  if (isUtc(zone) || zone === 'Local') return Math.floor(instant / 1000) * 1000;
  const p: Record<string, number> = {};
  for (const part of formatter(zone!).formatToParts(new Date(instant))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour! % 24, p.minute!, p.second!);
}

/** The UTC offset (ms) of `zone` at `instant`. */
export const offsetAt = (instant: number, zone: string | undefined): number => wallOf(instant, zone) - Math.floor(instant / 1000) * 1000;

/**
 * The instants a wall-clock minute stands for in `zone`: none when a DST transition skips it, two when one repeats
 * it (earliest first), else one. Offsets are looked up a day either side, which covers every zone's transitions.
 */
export function instantsOf(wall: number, zone: string | undefined): number[] {
  if (isUtc(zone) || zone === 'Local') return [wall];
  const offsets = new Set([offsetAt(wall - 86_400_000, zone), offsetAt(wall, zone), offsetAt(wall + 86_400_000, zone)]);
  const out: number[] = [];
  for (const off of offsets) {
    const instant = wall - off;
    if (wallOf(instant, zone) === wall && !out.includes(instant)) out.push(instant);
  }
  return out.sort((a, b) => a - b);
}

/** RFC 3339 with the zone's offset, as Go's time.Format(time.RFC3339) writes a time In(location). */
export function rfc3339In(instant: number, zone: string | undefined): string {
  const wall = wallOf(instant, zone);
  const base = new Date(wall).toISOString().replace(/\.\d{3}Z$/, '');
  const off = Math.round((wall - Math.floor(instant / 1000) * 1000) / MINUTE);
  if (off === 0) return `${base}Z`;
  const abs = Math.abs(off);
  return `${base}${off < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
