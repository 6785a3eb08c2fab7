// Acceptance: the official Kubernetes Python client (Debian's python3-kubernetes), typed APIs only,
// against the real gateway over HTTPS with the kubeconfig's CA — create, patch, delete, list, watch
// (its `watch=True`), and a watch resumed from a list's resourceVersion; create_from_yaml's error text, byte for byte.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { startTestGateway, stopTestGateway, type Running } from './fixtures';

const SCRIPT = join(__dirname, 'python', 'typed_client.py');
const PYTHON = '/usr/bin/python3';

let r: Running;
beforeAll(async () => {
  r = await startTestGateway();
});
afterAll(() => stopTestGateway(r));

function runPython(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(PYTHON, [SCRIPT, ...args], { timeout: 90_000, env: { ...process.env, HOME: r.dir } }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('official Python client', () => {
  it('creates, patches, deletes, lists and watches with the typed APIs', async () => {
    const res = await runPython([r.kubeconfig, 'py-typed']);
    if (res.code !== 0) throw new Error(`python client failed (${res.code}): ${res.stderr}`);
    const out = JSON.parse(res.stdout);

    expect(out.namespace).toEqual({ labels: { 'kubernetes.io/metadata.name': 'py-typed' }, finalizers: ['kubernetes'], phase: 'Active' });
    expect(out.listed).toEqual(['alpha', 'beta']);
    expect(out.patched).toEqual({ x: '2' });

    // Resumed from the list's resourceVersion: exactly the three later changes, in order.
    expect(out.resumed.map((e: { type: string; name: string }) => [e.type, e.name])).toEqual([
      ['MODIFIED', 'alpha'], ['DELETED', 'beta'], ['ADDED', 'gamma'],
    ]);
    expect(out.resumed[0].data).toEqual({ x: '2' });
    const rvs = out.resumed.map((e: { resourceVersion: string }) => Number(e.resourceVersion));
    expect([...rvs].sort((a, b) => a - b)).toEqual(rvs);

    // From the current state: both remaining config maps as ADDED.
    const initial = out.initial.filter((e: { type: string }) => e.type !== 'BOOKMARK');
    expect(initial.map((e: { type: string; name: string }) => [e.type, e.name]).sort()).toEqual([['ADDED', 'alpha'], ['ADDED', 'gamma']]);

    // timeoutSeconds=1 on a watch with nothing to send ends the stream on the server's side.
    expect(out.quietWatch.events).toBe(0);
    expect(out.quietWatch.seconds).toBeLessThan(10);

    expect(out.secret).toEqual({ type: 'Opaque', data: { password: Buffer.from('s3cr3t').toString('base64') }, stringData: null });
    expect(out.deployment).toEqual({
      replicas: 1, strategy: 'RollingUpdate', maxSurge: '25%', maxUnavailable: '25%', revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600, imagePullPolicy: 'IfNotPresent', restartPolicy: 'Always', generation: 1,
    });
    expect(out.scaled).toEqual({ replicas: 3, generation: 2 });
    expect(out.afterDelete).toEqual({ status: 404, reason: 'NotFound' });
  });

  it('create_from_yaml of an existing object fails with kube\'s body, newline included', async () => {
    const script = [
      'import json, sys, kubernetes.config, kubernetes.client, kubernetes.utils',
      'kubernetes.config.load_kube_config(sys.argv[1])',
      'api = kubernetes.client.ApiClient()',
      'doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "twice", "namespace": "default"}}',
      'kubernetes.utils.create_from_dict(api, doc)',
      'try:',
      '    kubernetes.utils.create_from_dict(api, doc)',
      'except kubernetes.utils.FailToCreateError as e:',
      '    print(json.dumps(str(e)))',
    ].join('\n');
    const res = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(PYTHON, ['-c', script, r.kubeconfig], { timeout: 60_000, env: { ...process.env, HOME: r.dir } }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      });
    });
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toBe('Error from server (Conflict): {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
      + '"message":"configmaps \\"twice\\" already exists","reason":"AlreadyExists","details":{"name":"twice","kind":"configmaps"},"code":409}\n');
  });
});
