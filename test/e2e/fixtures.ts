// Test fixture: the real gateway as `npm start` runs it (bundled Worker on Miniflare, state on disk),
// plus a client for raw HTTP and one that runs /usr/bin/kubectl against the written kubeconfig.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { startGateway, writeKubeconfig, type Gateway } from '../../scripts/gateway';
import type { ListenerLimits } from '../../scripts/dual-listener';

export const TOKEN = 'e2e-admin-token';
// The ServiceAccount signing key test gateways get (32 bytes, the HS256 minimum), so tests can mint tokens.
export const SIGNING_KEY = 'e2e-service-account-signing-key!';

export interface Running {
  gateway: Gateway;
  dir: string;
  kubeconfig: string;
  persistDir: string;
}

export interface TestSecrets {
  adminToken?: string;
  serviceAccountSigningKey?: string;
}

/** A gateway with `secrets` (default: TOKEN and SIGNING_KEY; `{}` starts one with none). */
export async function startTestGateway(opts: { persistDir?: string; vars?: Record<string, string>; listener?: Partial<ListenerLimits>; listenerUpstream?: 'entry' | 'direct'; secrets?: TestSecrets } = {}): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-e2e-'));
  const persistDir = opts.persistDir ?? join(dir, 'state');
  const secrets = opts.secrets ?? { adminToken: TOKEN, serviceAccountSigningKey: SIGNING_KEY };
  // Control loops create objects (default ServiceAccounts, Nodes, events) that tests counting objects exactly
  // do not expect: off unless a test asks for them.
  const vars = { CONTROLLERS: 'off', ...opts.vars };
  const gateway = await startGateway({ port: 0, persistDir, ...secrets, vars, listener: opts.listener, listenerUpstream: opts.listenerUpstream });
  const kubeconfig = join(dir, 'kubeconfig');
  writeKubeconfig(kubeconfig, gateway, TOKEN);
  return { gateway, dir, kubeconfig, persistDir };
}

export async function stopTestGateway(r: Running | undefined, keepState = false): Promise<void> {
  if (!r) return;
  await r.gateway.stop();
  if (!keepState) rmSync(r.dir, { recursive: true, force: true });
}

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function http(r: Running, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  const res = await fetch(`${r.gateway.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
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

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function kubectl(r: Running, args: string[], stdin?: string): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile('/usr/bin/kubectl', ['--kubeconfig', r.kubeconfig, ...args], {
      env: { ...process.env, KUBECACHEDIR: join(r.dir, 'kube-cache'), HOME: r.dir },
      timeout: 30_000,
    }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
    if (stdin !== undefined) child.stdin!.end(stdin);
  });
}

/** A series from /metrics for one resource type, summed over its labels (e.g. every replica). */
export async function metric(r: Running, name: string, resource: string): Promise<number> {
  const text = (await http(r, 'GET', '/metrics')).text;
  const lines = text.split('\n').filter((l) => l.startsWith(`${name}{resource="${resource}"`));
  if (lines.length === 0) throw new Error(`no ${name} for ${resource} in /metrics`);
  return lines.reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
}

/** Watchers of one resource type, at the store and at every replica. */
export async function watcherCount(r: Running, resource: string): Promise<number> {
  const store = await metric(r, 'edgeplane_watchers', resource);
  const replicas = await metric(r, 'edgeplane_replica_watchers', resource).catch(() => 0);
  return store + replicas;
}

/** Polls `probe` until it returns a value (not undefined), failing with `what` (and the last error) after `ms`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 45_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? ` (last error: ${last})` : ''}`);
    await new Promise((res) => setTimeout(res, intervalMs));
  }
}
