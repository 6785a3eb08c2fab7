// Production settings: the bundle `wrangler deploy` would upload (built by scripts/check-bundle.ts), run in Miniflare
// with wrangler.toml's own [vars] (replicas on, no test hooks) and real secrets, smoke-checked through kubectl and
// the watch API; and the same bundle without its secrets, which must refuse to serve and say which secret is missing.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../../scripts/gateway';
import { buildDeployBundle, DEPLOY_BUNDLE } from '../../scripts/check-bundle';
import { kubeconfigFromArgs } from '../../scripts/kubeconfig';
import { httpWatch } from './watch-streams';
import type { Running } from './fixtures';

const ADMIN = 'prod-admin-token-0123456789abcdef';
const SECRETS = { SERVICE_ACCOUNT_SIGNING_KEY: 'prod-signing-key-0123456789abcdef0123456789' };
let dir: string;
let gateway: Gateway | undefined;
let bare: Gateway | undefined;

beforeAll(async () => {
  buildDeployBundle();
  dir = mkdtempSync(join(tmpdir(), 'edgeplane-prod-'));
  gateway = await startGateway({ port: 0, persistDir: join(dir, 'state'), adminToken: ADMIN, vars: SECRETS, scriptPath: DEPLOY_BUNDLE });
  bare = await startGateway({ port: 0, persistDir: join(dir, 'bare'), scriptPath: DEPLOY_BUNDLE });
}, 180_000);
afterAll(async () => {
  await gateway?.stop();
  await bare?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function req(g: Gateway, method: string, path: string, body?: unknown, token: string | undefined = ADMIN) {
  return fetch(`${g.url}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

function kubectl(kubeconfig: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('/usr/bin/kubectl', ['--kubeconfig', kubeconfig, ...args], { env: { ...process.env, HOME: dir, KUBECACHEDIR: join(dir, 'cache') }, timeout: 30_000 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }));
  });
}

describe('the deploy bundle under production settings', () => {
  it('serves kubectl through a kubeconfig written by npm run kubeconfig', async () => {
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, gateway!.caCert);
    const { text } = kubeconfigFromArgs(['--server', gateway!.httpsUrl, '--token', ADMIN, '--ca-file', caFile]);
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, text);
    const ns = await kubectl(kubeconfig, ['get', 'ns', '-o', 'name']);
    expect(ns.stderr).toBe('');
    expect(ns.stdout.split('\n')).toEqual(expect.arrayContaining(['namespace/default', 'namespace/kube-system']));
  });

  it('watches through a replica (wrangler.toml turns them on) and answers writes', async () => {
    const list = await (await req(gateway!, 'GET', '/api/v1/namespaces/default/configmaps')).json() as any;
    const running = { gateway: gateway! } as Running;
    const w = await httpWatch(running, `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${list.metadata.resourceVersion}`,
      { authorization: `Bearer ${ADMIN}` });
    try {
      const created = await req(gateway!, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'smoke' }, data: { a: '1' } });
      expect(created.status).toBe(201);
      await w.log.until((evs) => evs.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'smoke'), 'the ADDED event');
    } finally {
      w.close();
    }
    const metrics = await (await req(gateway!, 'GET', '/metrics')).text();
    expect(metrics).toMatch(/edgeplane_replica_watchers\{resource="core\/configmaps"/);
  });

  it('does not route test hooks', async () => {
    for (const path of ['/debug/stores/core/configmaps/abort', '/debug/replicas/x/pause']) {
      const res = await req(gateway!, 'POST', path);
      expect(res.status, path).toBe(404);
    }
    expect((await req(gateway!, 'GET', '/api/v1/namespaces/default')).status).toBe(200);
  });

  it('refuses to serve without its secrets, naming them', async () => {
    for (const token of [undefined, 'anything']) {
      const res = await req(bare!, 'GET', '/api/v1/namespaces', undefined, token);
      expect(res.status).toBeGreaterThanOrEqual(500);
      const status = await res.json() as any;
      expect(status.kind).toBe('Status');
      expect(status.message).toMatch(/ADMIN_TOKEN|SERVICE_ACCOUNT_SIGNING_KEY/);
    }
  });
});
