// End-to-end: `npm start`'s way of running (scripts/launch.mjs: the entry bundled by esbuild in a child, then
// imported by plain Node) serves the gateway from one Node process whose only child is workerd — no tsx launcher,
// module-loader process or esbuild service left beside it (issue 20: idle RSS) — and stops on SIGTERM. It runs the
// benchmarks' entry (bench/targets/gateway-process.ts: scripts/serve.ts as scripts/start.ts calls it, without
// writing .dev.vars and ./kubeconfig into the checkout).

import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/root';

const LAUNCH = join(ROOT, 'scripts', 'launch.mjs');

/** The processes under `pid` (itself excluded), from /proc: pid, command name and command line. */
function descendants(pid: number): { pid: number; comm: string; cmd: string }[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // exited meanwhile
    }
  }
  const out: { pid: number; comm: string; cmd: string }[] = [];
  const queue = [...(children.get(pid) ?? [])];
  while (queue.length) {
    const p = queue.shift()!;
    try {
      out.push({ pid: p, comm: readFileSync(`/proc/${p}/comm`, 'utf8').trim(), cmd: readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ').trim() });
    } catch {
      continue;
    }
    queue.push(...(children.get(p) ?? []));
  }
  return out;
}

async function waitFor<T>(what: string, f: () => T | undefined, ms: number): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('scripts/launch.mjs (npm start)', () => {
  let dir: string;
  let proc: ChildProcess;
  let ready: { pid: number; url: string };
  let exited: Promise<number | null>;
  const token = randomBytes(32).toString('base64url');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'edgeplane-launch-'));
    const config = { persistDir: dir, adminToken: token, signingKey: randomBytes(32).toString('base64url'), vars: {}, inspector: false };
    proc = spawn(process.execPath, [LAUNCH, 'bench/targets/gateway-process.ts'], {
      cwd: ROOT,
      // As package.json's start script runs it.
      env: { ...process.env, MALLOC_ARENA_MAX: '1', BENCH_GATEWAY: JSON.stringify(config) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    exited = new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    const line = await waitFor('the ready line', () => out.split('\n').find((l) => l.startsWith('{"ready"')), 110_000);
    ready = JSON.parse(line) as { pid: number; url: string };
  });

  afterAll(async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves from the launching process itself, with workerd its only child', async () => {
    expect(ready.pid).toBe(proc.pid);
    const res = await fetch(`${ready.url}/version`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { gitVersion?: string }).gitVersion).toMatch(/^v1\./);
    // The bundling child and its esbuild service are gone once the entry runs; wrangler's and the Worker's bundling
    // children exit before the gateway serves.
    const tree = descendants(proc.pid!);
    expect(tree.map((p) => p.comm)).toEqual(['workerd']);
    expect(tree.some((p) => /tsx|esbuild/.test(p.cmd))).toBe(false);
  });

  it("keeps MALLOC_ARENA_MAX to itself: workerd runs with glibc's default", () => {
    const environ = (pid: number) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    expect(environ(proc.pid!)).toContain('MALLOC_ARENA_MAX=1');
    const workerd = descendants(proc.pid!).find((p) => p.comm === 'workerd')!;
    expect(environ(workerd.pid).some((v) => v.startsWith('MALLOC_ARENA_MAX='))).toBe(false);
  });

  it('stops on SIGTERM, workerd with it', async () => {
    const workerd = descendants(proc.pid!).find((p) => p.comm === 'workerd')!;
    proc.kill('SIGTERM');
    // Miniflare's exit hook, which runs first, kills workerd and exits 128 + 15 (as under tsx before).
    expect(await exited).toBe(143);
    await waitFor('workerd to exit', () => (existsSync(`/proc/${workerd.pid}`) ? undefined : true), 10_000);
  });
});

describe('scripts/launch.mjs --bundle-only', () => {
  it("bundles npm start's entry into dist/start.mjs, packages left as imports", () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.start).toBe('MALLOC_ARENA_MAX=1 node scripts/launch.mjs scripts/start.ts');
    const out = execFileSync(process.execPath, [LAUNCH, '--bundle-only', 'scripts/start.ts'], { cwd: ROOT, encoding: 'utf8' });
    expect(out).toBe(join(ROOT, 'dist', 'start.mjs'));
    const bundle = readFileSync(out, 'utf8');
    expect(bundle).toMatch(/from "miniflare"/);
    // The bundler is only in a chunk that scripts/gateway.ts imports when it bundles itself.
    expect(bundle).not.toMatch(/from "esbuild"/);
  });

  it('answers a missing entry with its usage and exit code 2', () => {
    let status: number | null = null;
    try {
      execFileSync(process.execPath, [LAUNCH], { cwd: ROOT, stdio: 'pipe' });
    } catch (e) {
      status = (e as { status: number | null }).status;
    }
    expect(status).toBe(2);
  });
});
