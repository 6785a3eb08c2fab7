// Script: what managedFields cost a write. Runs creates, updates and applies of Deployments through the
// write logic (core/writes.ts) over an in-memory store, and the field-manager step alone on the same
// objects, so "without managed fields" is the same work minus that step. Not a test; prints figures
// (per CPU second of this process).
//
// Usage: npx tsx scripts/bench-managed-fields.ts [count=2000] [containers=3]

import { executeWrite, type WriteStore } from '../core/writes';
import { lookupGroupResource } from '../core/registry';
import type { KubeObject } from '../core/object-meta';
import { recordUpdate } from '../core/apply/field-manager';
import { kindNode } from '../core/schema/compile';

const count = Number(process.argv[2] ?? 2000);
const containers = Number(process.argv[3] ?? 3);
const type = lookupGroupResource('apps/deployments')!;

function store(): WriteStore {
  const objects = new Map<string, string>();
  let rv = 0;
  return {
    get: (k) => (objects.has(k) ? JSON.parse(objects.get(k)!) : undefined),
    objects: () => [...objects.values()].map((v) => JSON.parse(v)),
    commit: (_t, key, obj) => {
      obj.metadata.resourceVersion = String(++rv);
      objects.set(key, JSON.stringify(obj));
      return obj;
    },
  };
}

function deployment(i: number, image = 'nginx:1.27'): KubeObject {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: `web-${i}`, labels: { app: 'web', tier: 'frontend' } },
    spec: {
      replicas: 3, selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: Array.from({ length: containers }, (_, c) => ({
            name: `c${c}`, image, args: ['--port', '8080'], env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }],
            ports: [{ containerPort: 8080 + c }], resources: { limits: { cpu: '500m', memory: '128Mi' } },
          })),
        },
      },
    },
  };
}

const env = () => ({ type, now: Date.now(), newUid: () => crypto.randomUUID(), randomSuffix: () => 'abcde' });

// CPU time of this process, not wall time: on a shared machine, time spent waiting for a core is not
// the write's cost.
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function time(label: string, n: number, fn: (i: number) => void): number {
  for (let i = 0; i < Math.min(200, n); i++) fn(-1 - i); // warm-up
  const t0 = cpuMs();
  for (let i = 0; i < n; i++) fn(i);
  const ms = cpuMs() - t0;
  console.log(`${label.padEnd(44)} ${(n / (ms / 1000)).toFixed(0).padStart(8)} /s   ${(ms / n * 1000).toFixed(1).padStart(7)} µs each`);
  return ms / n;
}

const s = store();
const bodies = Array.from({ length: count }, (_, i) => JSON.stringify(deployment(i)));
const warm = Array.from({ length: 200 }, (_, i) => JSON.stringify(deployment(100000 + i)));
const create = time('create (with managedFields)', count, (i) => {
  executeWrite(s, env(), { verb: 'create', namespace: 'bench', body: i < 0 ? warm[-1 - i] : bodies[i], fieldManager: 'kubectl-create' });
});
const ctx = { node: kindNode('apps', 'v1', 'Deployment')!, group: 'apps', version: 'v1', kind: 'Deployment', subresource: '' as const, hasStatus: true, now: Date.now() };
const created = bodies.map((b) => {
  const o = JSON.parse(b) as KubeObject;
  o.metadata.namespace = 'bench';
  return o;
});
const record = time('  of which: field manager on create', count, (i) => {
  const o = structuredClone(created[i < 0 ? 0 : i]);
  recordUpdate(ctx, undefined, o, 'kubectl-create');
});
console.log(`${'create without managedFields (difference)'.padEnd(44)} ${(1000 / (create - record)).toFixed(0).padStart(8)} /s`);

time('update changing one image (with managedFields)', count, (i) => {
  const cur = s.get(`bench/web-${i < 0 ? 0 : i}`) as KubeObject;
  (cur.spec as any).template.spec.containers[0].image = `nginx:${i}`;
  executeWrite(s, env(), { verb: 'update', namespace: 'bench', name: cur.metadata.name!, subresource: '', body: JSON.stringify(cur), fieldManager: 'kubectl-edit' });
});
time('server-side apply, changed image', count, (i) => {
  const body = JSON.stringify(deployment(i < 0 ? 0 : i, `nginx:apply-${i}`));
  executeWrite(s, env(), { verb: 'patch', namespace: 'bench', name: `web-${i < 0 ? 0 : i}`, subresource: '', patchType: 'application/apply-patch+yaml', body, fieldManager: 'ci', force: true });
});
time('server-side apply, no-op', count, (i) => {
  const body = JSON.stringify(deployment(i < 0 ? 0 : i, `nginx:apply-${i < 0 ? 0 : i}`));
  executeWrite(s, env(), { verb: 'patch', namespace: 'bench', name: `web-${i < 0 ? 0 : i}`, subresource: '', patchType: 'application/apply-patch+yaml', body, fieldManager: 'ci' });
});
