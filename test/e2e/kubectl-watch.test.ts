// kubectl's watch-based commands against the gateway: get -w, --output-watch-events, delete --wait
// and wait --for=delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { http, kubectl, watcherCount, startTestGateway, stopTestGateway, type Running } from './fixtures';

let r: Running;
beforeAll(async () => {
  r = await startTestGateway();
  await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: 'kw' } });
});
afterAll(() => stopTestGateway(r));

/** A long-running kubectl whose stdout lines can be awaited. */
function follow(args: string[]) {
  const child: ChildProcess = spawn('/usr/bin/kubectl', ['--kubeconfig', r.kubeconfig, ...args], {
    env: { ...process.env, KUBECACHEDIR: join(r.dir, 'kube-cache'), HOME: r.dir },
  });
  const lines: string[] = [];
  let stderr = '';
  let waiters: (() => void)[] = [];
  let buffer = '';
  let exitCode: number | null = null;
  child.stdout!.on('data', (d: Buffer) => {
    buffer += d.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    lines.push(...parts.filter((l) => l.trim()));
    waiters.forEach((w) => w());
    waiters = [];
  });
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number>((resolve) => child.on('exit', (code) => {
    exitCode = code ?? -1;
    waiters.forEach((w) => w());
    resolve(exitCode);
  }));
  return {
    lines,
    exited,
    async until(pred: (lines: string[]) => boolean, what: string, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!pred(lines)) {
        if (exitCode !== null) throw new Error(`kubectl exited (${exitCode}) before ${what}: ${stderr}\n${lines.join('\n')}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out waiting for ${what}: ${stderr}\n${lines.join('\n')}`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
    },
    kill: () => child.kill(),
  };
}

const pod = (name: string) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
const merge = { 'content-type': 'application/merge-patch+json' };

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('kubectl watch commands', () => {
  it('get pods -w shows creates, updates and deletes as they happen', async () => {
    await http(r, 'POST', '/api/v1/namespaces/kw/pods', pod('first'));
    const w = follow(['get', 'pods', '-n', 'kw', '-w']);
    await w.until((l) => l.some((x) => /^first\s+0\/1\s+Pending/.test(x)), 'the initial list');
    await http(r, 'POST', '/api/v1/namespaces/kw/pods', pod('second'));
    await w.until((l) => l.some((x) => /^second\s+0\/1\s+Pending/.test(x)), 'the created pod');
    await http(r, 'PATCH', '/api/v1/namespaces/kw/pods/second/status', { status: { phase: 'Running' } }, merge);
    await w.until((l) => l.some((x) => /^second\s+0\/1\s+Running/.test(x)), 'the update');
    expect(w.lines[0]).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    w.kill();
  });

  it('get pods -w --output-watch-events prints event types', async () => {
    const w = follow(['get', 'pods', '-n', 'kw', '-w', '--output-watch-events']);
    await w.until((l) => l.some((x) => /^ADDED\s+first/.test(x)), 'the initial ADDED');
    await http(r, 'POST', '/api/v1/namespaces/kw/pods', pod('third'));
    await http(r, 'PATCH', '/api/v1/namespaces/kw/pods/third', { metadata: { labels: { a: 'b' } } }, merge);
    await http(r, 'DELETE', '/api/v1/namespaces/kw/pods/third');
    await w.until((l) => l.some((x) => /^DELETED\s+third/.test(x)), 'the DELETED event');
    const third = w.lines.filter((x) => /\sthird\s/.test(x)).map((x) => x.split(/\s+/)[0]);
    expect(third).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    w.kill();
  });

  it('delete --wait returns once the finalizer is removed', async () => {
    await http(r, 'POST', '/api/v1/namespaces/kw/configmaps', { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    const del = follow(['delete', 'configmap', 'held', '-n', 'kw', '--timeout=30s']);
    await until(async () => !!(await http(r, 'GET', '/api/v1/namespaces/kw/configmaps/held')).json?.metadata?.deletionTimestamp, 'deletionTimestamp');
    await http(r, 'PATCH', '/api/v1/namespaces/kw/configmaps/held', { metadata: { finalizers: null } }, merge);
    expect(await del.exited).toBe(0);
    expect(del.lines.join('\n')).toContain('configmap "held" deleted');
    expect((await http(r, 'GET', '/api/v1/namespaces/kw/configmaps/held')).status).toBe(404);
  });

  it('wait --for=delete returns when the object goes', async () => {
    await http(r, 'POST', '/api/v1/namespaces/kw/configmaps', { metadata: { name: 'doomed' } });
    const before = await watcherCount(r, 'core/configmaps');
    const w = follow(['wait', '--for=delete', 'configmap/doomed', '-n', 'kw', '--timeout=30s']);
    await until(async () => (await watcherCount(r, 'core/configmaps')) > before, 'kubectl to start watching');
    await http(r, 'DELETE', '/api/v1/namespaces/kw/configmaps/doomed');
    expect(await w.exited).toBe(0);
    expect(w.lines.join('\n')).toContain('configmap/doomed condition met');
  });

  it('wait --for=delete fails cleanly when the object stays', async () => {
    await http(r, 'POST', '/api/v1/namespaces/kw/configmaps', { metadata: { name: 'stays' } });
    const res = await kubectl(r, ['wait', '--for=delete', 'configmap/stays', '-n', 'kw', '--timeout=1s']);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('timed out waiting for the condition');
  });
});
