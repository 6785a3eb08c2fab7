// Test helper: one hostile limited tenant against a concurrent victim, through the real gateway (issue 18).
// A tenant is a ServiceAccount bound to a built-in ClusterRole (`edit` by default) in its own namespace; the
// victim is another such tenant whose requests (a read, a write, /readyz) must keep succeeding within
// max(1.5 s, 25× their median before the attack) — the bound the fuzzing test uses — while the attack runs.
// Each run prints the victim's latency and the workerd process's RSS and CPU, as the issue asks.
import { readdirSync, readFileSync } from 'node:fs';
import { http, type Running } from './fixtures';

export interface Tenant {
  namespace: string;
  user: string; // system:serviceaccount:<ns>:<name>
  token: string;
}

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

async function admin(r: Running, method: string, path: string, body?: unknown) {
  const res = await http(r, method, path, body);
  if (res.status >= 300 && res.status !== 409) throw new Error(`setup ${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  return res;
}

/** A namespace, a ServiceAccount in it bound to ClusterRole `role` there, and a token for it. */
export async function limitedTenant(r: Running, namespace: string, role = 'edit', name = 'tenant'): Promise<Tenant> {
  await admin(r, 'POST', '/api/v1/namespaces', { metadata: { name: namespace } });
  await admin(r, 'POST', `/api/v1/namespaces/${namespace}/serviceaccounts`, { metadata: { name } });
  await admin(r, 'POST', `${RBAC}/namespaces/${namespace}/rolebindings`, {
    metadata: { name: `${name}-${role}` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'ServiceAccount', name, namespace }],
  });
  const issued = await admin(r, 'POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, { spec: { expirationSeconds: 7200 } });
  return { namespace, user: `system:serviceaccount:${namespace}:${name}`, token: issued.json.status.token };
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/**
 * A request as `tenant` (JSON body unless a string is given), given up after `timeoutMs` (a frozen gateway must
 * fail the test, not hang it).
 */
export async function as(r: Running, tenant: Tenant | undefined, method: string, path: string, body?: unknown,
  headers: Record<string, string> = {}, timeoutMs = 30_000): Promise<Reply> {
  const res = await fetch(`${r.gateway.url}${path}`, {
    method,
    headers: { ...(tenant ? { authorization: `Bearer ${tenant.token}` } : {}), 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export interface ProcessStats {
  rssBytes: number;
  cpuMs: number; // user + system since the process started
}

/** RSS and CPU of the workerd processes this test process started (Miniflare's children). */
export function workerdStats(): ProcessStats {
  let rssBytes = 0;
  let cpuMs = 0;
  const tick = 10; // USER_HZ is 100 on Linux: one clock tick is 10 ms
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    if (comm !== 'workerd' || Number(fields[1]) !== process.pid) continue;
    let status: string;
    try {
      status = readFileSync(`/proc/${entry}/status`, 'utf8');
    } catch {
      continue; // the process ended meanwhile
    }
    cpuMs += (Number(fields[11]) + Number(fields[12])) * tick;
    rssBytes += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
  }
  return { rssBytes, cpuMs };
}

export interface VictimReport {
  baselineMs: number; // median of one probe round before the attack
  boundMs: number;
  samples: number;
  p50Ms: number;
  maxMs: number;
  failures: string[]; // probes that failed or exceeded the bound
}

/**
 * The victim: a tenant that reads a sentinel ConfigMap, writes (creates and deletes) one, and asks /readyz, in a
 * loop. `baseline()` measures its median first; `during(attack)` probes continuously while `attack` runs and
 * reports every probe that failed or took longer than the bound.
 */
/** The victim's pace: one round (three requests as the tenant, one /readyz) per this many milliseconds at most. */
const PROBE_EVERY_MS = 50;

/** Waits out the rest of a probing round begun at `startedAt` (performance.now()), unless `stopped`. */
export async function restOfRound(startedAt: number, stopped: () => boolean): Promise<void> {
  const rest = PROBE_EVERY_MS - (performance.now() - startedAt);
  if (rest > 0 && !stopped()) await new Promise((res) => setTimeout(res, rest));
}

export class Victim {
  private baselineMs = 0;
  private sentinelRv = '';
  private seq = 0;

  constructor(private readonly r: Running, readonly tenant: Tenant) {}

  static async create(r: Running, namespace = 'victim'): Promise<Victim> {
    const v = new Victim(r, await limitedTenant(r, namespace));
    const made = await as(r, v.tenant, 'POST', `/api/v1/namespaces/${namespace}/configmaps`, { metadata: { name: 'sentinel' }, data: { keep: 'me' } });
    if (made.status !== 201 && made.status !== 409) throw new Error(`victim sentinel: ${made.status} ${made.text}`);
    const got = await as(r, v.tenant, 'GET', `/api/v1/namespaces/${namespace}/configmaps/sentinel`);
    v.sentinelRv = got.json.metadata.resourceVersion;
    return v;
  }

  /** One round: read, create + delete, /readyz. Returns the slowest step's latency, or throws what failed. */
  async probe(): Promise<number> {
    const ns = this.tenant.namespace;
    // A probe waits at most a little beyond the bound, so a frozen gateway fails the test instead of hanging it.
    // Whole milliseconds: AbortSignal.timeout throws on a fraction (a median above 60 ms makes 25× of it one), and
    // a probe that throws before any I/O would leave the probing loop spinning in microtasks.
    const limit = this.baselineMs ? Math.ceil(this.boundMs) + 1000 : 30_000;
    const steps: [string, () => Promise<Reply>, (s: Reply) => boolean][] = [
      ['read', () => as(this.r, this.tenant, 'GET', `/api/v1/namespaces/${ns}/configmaps/sentinel`, undefined, {}, limit), (s) => s.status === 200 && s.json?.metadata?.resourceVersion === this.sentinelRv],
      ['create', () => as(this.r, this.tenant, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `probe-${this.seq}` } }, {}, limit), (s) => s.status === 201],
      ['delete', () => as(this.r, this.tenant, 'DELETE', `/api/v1/namespaces/${ns}/configmaps/probe-${this.seq}`, undefined, {}, limit), (s) => s.status === 200],
      ['readyz', () => as(this.r, undefined, 'GET', '/readyz', undefined, {}, limit), (s) => s.status === 200],
    ];
    this.seq++;
    let slowest = 0;
    for (const [what, run, ok] of steps) {
      const start = performance.now();
      let res: Reply;
      try {
        res = await run();
      } catch (e) {
        throw new Error(`${what}: transport failure ${String((e as { cause?: unknown }).cause ?? e)}`);
      }
      const ms = performance.now() - start;
      if (!ok(res)) {
        // A 429 names who refused: flow control stamps its FlowSchema, the authorizer's rate limit and the local
        // listener's connection cap do not (and the listener closes the connection).
        const who = res.status === 429 ? ` [flow schema ${res.headers.get('x-kubernetes-pf-flowschema-uid') ?? 'none'}, connection ${res.headers.get('connection') ?? '-'}]` : '';
        throw new Error(`${what}: ${res.status}${who} ${res.text.slice(0, 200)}`);
      }
      slowest = Math.max(slowest, ms);
    }
    return slowest;
  }

  async baseline(rounds = 15): Promise<number> {
    const samples: number[] = [];
    for (let i = 0; i < rounds; i++) samples.push(await this.probe());
    samples.sort((a, b) => a - b);
    this.baselineMs = samples[Math.floor(samples.length / 2)]!;
    return this.baselineMs;
  }

  get boundMs(): number {
    return Math.max(1500, 25 * this.baselineMs);
  }

  /**
   * Runs `attack` while probing; keeps probing for `settleMs` after it returns (what it left behind — queued work,
   * stored objects — must not stall anyone either). Prints the figures under `label`.
   */
  async during<T>(label: string, attack: () => Promise<T>, settleMs = 2000): Promise<{ result: T; report: VictimReport }> {
    if (!this.baselineMs) await this.baseline();
    const before = workerdStats();
    const started = performance.now();
    const latencies: number[] = [];
    const failures: string[] = [];
    let failed = 0;
    const fail = (what: string) => {
      if (failed++ < 20) failures.push(what);
      else failures[20] = `… and ${failed - 20} more`;
    };
    let stop = false;
    let peakRss = before.rssBytes;
    const prober = (async () => {
      while (!stop) {
        // A round at most every PROBE_EVERY_MS: an ordinary client, well inside the per-user rate limit (200/s by
        // default) however fast the gateway answers — on a quiet machine an unpaced loop reached it and got 429s.
        const roundStart = performance.now();
        try {
          const ms = await this.probe();
          latencies.push(ms);
          if (ms > this.boundMs) fail(`probe took ${ms.toFixed(0)} ms (bound ${this.boundMs.toFixed(0)} ms)`);
        } catch (e) {
          fail((e as Error).message);
        }
        peakRss = Math.max(peakRss, workerdStats().rssBytes);
        await restOfRound(roundStart, () => stop);
      }
    })();
    let result: T;
    try {
      result = await attack();
      const settleUntil = performance.now() + settleMs;
      while (performance.now() < settleUntil) await new Promise((res) => setTimeout(res, 50));
    } finally {
      stop = true;
      await prober;
    }
    const after = workerdStats();
    const wallMs = performance.now() - started;
    latencies.sort((a, b) => a - b);
    const report: VictimReport = {
      baselineMs: this.baselineMs, boundMs: this.boundMs, samples: latencies.length,
      p50Ms: latencies[Math.floor(latencies.length / 2)] ?? NaN, maxMs: latencies.at(-1) ?? NaN, failures,
    };
    const mb = (b: number) => (b / 1048576).toFixed(0);
    console.log(`[hostile] ${label}: victim ${report.samples} probes, baseline ${report.baselineMs.toFixed(0)} ms, p50 ${report.p50Ms.toFixed(0)} ms, `
      + `max ${report.maxMs.toFixed(0)} ms (bound ${report.boundMs.toFixed(0)} ms), ${failed} failures; workerd RSS ${mb(before.rssBytes)} → `
      + `${mb(after.rssBytes)} MB (peak ${mb(peakRss)} MB), CPU ${((after.cpuMs - before.cpuMs) / wallMs * 100).toFixed(0)}% of a core over ${(wallMs / 1000).toFixed(1)} s`);
    return { result: result!, report };
  }
}
