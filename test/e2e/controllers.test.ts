// Control loops end to end: kubectl against the real gateway with the controller manager running
// (Deployment, ReplicaSet, garbage collector, ServiceAccount controllers, the scheduler and simulated kubelets).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running, waitFor } from './fixtures';

const CONTROLLERS_ON = { CONTROLLERS: 'on', SIMULATED_NODES: '3' };

async function must(r: Running, ...args: string[]) {
  const res = await kubectl(r, args);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}

const list = async (r: Running, path: string): Promise<any[]> => (await http(r, 'GET', path)).json.items;
const rsOf = (r: Running, ns: string) => list(r, `/apis/apps/v1/namespaces/${ns}/replicasets`);
const podsOf = (r: Running, ns: string) => list(r, `/api/v1/namespaces/${ns}/pods`);
const owner = (o: any) => o.metadata.ownerReferences?.find((x: any) => x.controller);

async function storeWrites(r: Running): Promise<number> {
  const text = (await http(r, 'GET', '/metrics')).text;
  return text.split('\n').filter((l) => l.startsWith('edgeplane_store_writes_total{')).reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
}

describe('controllers', () => {
  let r: Running;
  beforeAll(async () => {
    r = await startTestGateway({ vars: CONTROLLERS_ON });
    await must(r, 'create', 'namespace', 'apps');
  });
  afterAll(() => stopTestGateway(r));

  it('creates a ReplicaSet and 3 pods for a Deployment, owned with controller references, and rolls out', async () => {
    const writesBefore = await storeWrites(r);
    const t0 = Date.now();
    await must(r, '-n', 'apps', 'create', 'deployment', 'web', '--image=nginx', '--replicas=3');
    const rollout = await must(r, '-n', 'apps', 'rollout', 'status', 'deployment/web', '--timeout=30s');
    const elapsed = Date.now() - t0;
    const writes = (await storeWrites(r)) - writesBefore;
    console.log(`create → Available (3 replicas): ${elapsed} ms; ${writes} store writes (${(writes / (elapsed / 1000)).toFixed(0)} writes/s)`);
    expect(rollout).toContain('deployment "web" successfully rolled out');

    const deploy = (await http(r, 'GET', '/apis/apps/v1/namespaces/apps/deployments/web')).json;
    const rss = await rsOf(r, 'apps');
    expect(rss).toHaveLength(1);
    const rs = rss[0];
    const hash = rs.metadata.labels['pod-template-hash'];
    expect(rs.metadata.name).toBe(`web-${hash}`);
    expect(owner(rs)).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: deploy.metadata.uid, controller: true, blockOwnerDeletion: true });
    expect(rs.spec.selector.matchLabels).toEqual({ app: 'web', 'pod-template-hash': hash });
    expect(rs.metadata.annotations).toMatchObject({
      'deployment.kubernetes.io/revision': '1', 'deployment.kubernetes.io/desired-replicas': '3', 'deployment.kubernetes.io/max-replicas': '4',
    });
    expect(deploy.metadata.annotations['deployment.kubernetes.io/revision']).toBe('1');
    expect(rs.status).toMatchObject({ replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 });

    const pods = await podsOf(r, 'apps');
    expect(pods).toHaveLength(3);
    for (const p of pods) {
      expect(p.metadata.generateName).toBe(`${rs.metadata.name}-`);
      expect(owner(p)).toEqual({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name, uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true });
      expect(p.status.phase).toBe('Running');
      expect(p.spec.nodeName).toMatch(/^node-[123]$/);
    }
    // The scheduler spreads pods over the nodes, one each.
    expect(new Set(pods.map((p) => p.spec.nodeName)).size).toBe(3);

    expect(deploy.status).toMatchObject({ observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
    const conds = Object.fromEntries(deploy.status.conditions.map((c: any) => [c.type, c]));
    expect(conds.Available).toMatchObject({ status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' });
    expect(conds.Progressing).toMatchObject({ status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${rs.metadata.name}" has successfully progressed.` });

    const table = await must(r, '-n', 'apps', 'get', 'deployment', 'web');
    expect(table).toMatch(/web\s+3\/3\s+3\s+3\s/);
  });

  it('scales up to 5 and down to 2', async () => {
    await must(r, '-n', 'apps', 'scale', 'deployment/web', '--replicas=5');
    await must(r, '-n', 'apps', 'rollout', 'status', 'deployment/web', '--timeout=30s');
    expect(await podsOf(r, 'apps')).toHaveLength(5);
    const [rs] = await rsOf(r, 'apps');
    expect(rs.metadata.annotations).toMatchObject({ 'deployment.kubernetes.io/desired-replicas': '5', 'deployment.kubernetes.io/max-replicas': '7' });

    await must(r, '-n', 'apps', 'scale', 'deployment/web', '--replicas=2');
    await waitFor('2 pods after scaling down', async () => ((await podsOf(r, 'apps')).length === 2 ? true : undefined));
    await must(r, '-n', 'apps', 'rollout', 'status', 'deployment/web', '--timeout=30s');
    const events = await list(r, `/api/v1/namespaces/apps/events?fieldSelector=involvedObject.name=${rs.metadata.name}`);
    expect(events.filter((e) => e.reason === 'SuccessfulDelete')).toHaveLength(3);
    expect(events.find((e) => e.reason === 'SuccessfulCreate')).toMatchObject({
      type: 'Normal', source: { component: 'replicaset-controller' }, message: expect.stringMatching(new RegExp(`^Created pod: ${rs.metadata.name}-[a-z0-9]{5}$`)),
    });
  });

  it('rolls out a new image with a new ReplicaSet, then rolls back with undo', async () => {
    const [first] = await rsOf(r, 'apps');
    await must(r, '-n', 'apps', 'set', 'image', 'deployment/web', 'nginx=nginx:1.27');
    const status = await must(r, '-n', 'apps', 'rollout', 'status', 'deployment/web', '--timeout=30s');
    expect(status).toContain('successfully rolled out');
    const rss = await rsOf(r, 'apps');
    expect(rss).toHaveLength(2);
    const second = rss.find((x) => x.metadata.name !== first.metadata.name);
    expect(second.spec.template.spec.containers[0].image).toBe('nginx:1.27');
    expect(second.metadata.annotations['deployment.kubernetes.io/revision']).toBe('2');
    expect(second.spec.replicas).toBe(2);
    expect(rss.find((x) => x.metadata.name === first.metadata.name).spec.replicas).toBe(0);
    // The old pods are deleted gracefully: Terminating until their kubelet has stopped them.
    await waitFor('only the new ReplicaSet\'s 2 pods', async () => {
      const pods = await podsOf(r, 'apps');
      return pods.length === 2 && pods.every((p) => owner(p).name === second.metadata.name) ? true : undefined;
    });

    const history = await must(r, '-n', 'apps', 'rollout', 'history', 'deployment/web');
    expect(history).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);

    await must(r, '-n', 'apps', 'rollout', 'undo', 'deployment/web');
    await must(r, '-n', 'apps', 'rollout', 'status', 'deployment/web', '--timeout=30s');
    const back = (await rsOf(r, 'apps')).find((x) => x.metadata.name === first.metadata.name);
    expect(back.spec.replicas).toBe(2);
    expect(back.metadata.annotations).toMatchObject({ 'deployment.kubernetes.io/revision': '3', 'deployment.kubernetes.io/revision-history': '1' });
    const deploy = (await http(r, 'GET', '/apis/apps/v1/namespaces/apps/deployments/web')).json;
    expect(deploy.metadata.annotations['deployment.kubernetes.io/revision']).toBe('3');
  });

  it('shows the controllers\' events in kubectl describe', async () => {
    const [rs] = (await rsOf(r, 'apps')).filter((x) => x.metadata.annotations['deployment.kubernetes.io/revision'] === '3');
    const out = await must(r, '-n', 'apps', 'describe', 'deployment', 'web');
    expect(out).toMatch(/StrategyType:\s+RollingUpdate/);
    expect(out).toMatch(/RollingUpdateStrategy:\s+25% max unavailable, 25% max surge/);
    expect(out).toMatch(new RegExp(`Normal\\s+ScalingReplicaSet\\s+\\S+\\s+deployment-controller\\s+Scaled up replica set ${rs.metadata.name} from 0 to 3`));
    expect(out).toMatch(new RegExp(`Scaled down replica set ${rs.metadata.name} from 5 to 2`));
    expect(out).toMatch(new RegExp(`NewReplicaSet:\\s+${rs.metadata.name} \\(2/2 replicas created\\)`));
  });

  it('holds a paused Deployment\'s template change until resume; restarts', async () => {
    await must(r, '-n', 'apps', 'rollout', 'pause', 'deployment/web');
    await waitFor('the DeploymentPaused condition', async () => {
      const d = (await http(r, 'GET', '/apis/apps/v1/namespaces/apps/deployments/web')).json;
      return d.status.conditions.find((c: any) => c.type === 'Progressing' && c.reason === 'DeploymentPaused' && c.status === 'Unknown');
    });
    const rsCount = (await rsOf(r, 'apps')).length;
    await must(r, '-n', 'apps', 'set', 'env', 'deployment/web', 'MODE=paused');
    await waitFor('the paused change to be observed', async () => {
      const d = (await http(r, 'GET', '/apis/apps/v1/namespaces/apps/deployments/web')).json;
      return d.status.observedGeneration === d.metadata.generation ? true : undefined;
    });
    expect((await rsOf(r, 'apps')).length).toBe(rsCount);
    await must(r, '-n', 'apps', 'rollout', 'resume', 'deployment/web');
    await must(r, '-n', 'apps', 'rollout', 'status', 'deployment/web', '--timeout=30s');
    expect((await rsOf(r, 'apps')).length).toBe(rsCount + 1);

    await must(r, '-n', 'apps', 'rollout', 'restart', 'deployment/web');
    await must(r, '-n', 'apps', 'rollout', 'status', 'deployment/web', '--timeout=30s');
    expect((await rsOf(r, 'apps')).length).toBe(rsCount + 2);
    await waitFor('2 restarted pods', async () => {
      const pods = await podsOf(r, 'apps');
      return pods.length === 2 && pods.every((p) => p.metadata.annotations?.['kubectl.kubernetes.io/restartedAt']) ? true : undefined;
    });
  });

  it('orphans the ReplicaSet and pods with --cascade=orphan', async () => {
    await must(r, '-n', 'apps', 'create', 'deployment', 'keep', '--image=nginx', '--replicas=2');
    await must(r, '-n', 'apps', 'rollout', 'status', 'deployment/keep', '--timeout=30s');
    await must(r, '-n', 'apps', 'delete', 'deployment', 'keep', '--cascade=orphan');
    expect((await http(r, 'GET', '/apis/apps/v1/namespaces/apps/deployments/keep')).status).toBe(404);
    const rs = (await rsOf(r, 'apps')).filter((x) => x.metadata.name.startsWith('keep-'));
    expect(rs).toHaveLength(1);
    expect(rs[0].metadata.ownerReferences ?? []).toEqual([]);
    expect(rs[0].metadata.finalizers).toBeUndefined();
    const pods = (await podsOf(r, 'apps')).filter((p) => p.metadata.name.startsWith('keep-'));
    expect(pods).toHaveLength(2);
    expect(pods.every((p) => owner(p).uid === rs[0].metadata.uid)).toBe(true);
  });

  it('deletes dependents in the foreground, holding the owner with the foregroundDeletion finalizer', async () => {
    await must(r, '-n', 'apps', 'create', 'deployment', 'fg', '--image=nginx', '--replicas=2');
    await must(r, '-n', 'apps', 'rollout', 'status', 'deployment/fg', '--timeout=30s');
    const del = await http(r, 'DELETE', '/apis/apps/v1/namespaces/apps/deployments/fg', { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' });
    expect(del.status).toBe(200);
    expect(del.json.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(del.json.metadata.deletionTimestamp).toBeTruthy();
    await waitFor('the Deployment, its ReplicaSet and pods to be gone', async () => {
      const d = await http(r, 'GET', '/apis/apps/v1/namespaces/apps/deployments/fg');
      const rs = (await rsOf(r, 'apps')).filter((x) => x.metadata.name.startsWith('fg-'));
      const pods = (await podsOf(r, 'apps')).filter((p) => p.metadata.name.startsWith('fg-'));
      return d.status === 404 && rs.length === 0 && pods.length === 0 ? true : undefined;
    });
  });

  it('deletes the ReplicaSets and pods of a deleted Deployment (background)', async () => {
    await must(r, '-n', 'apps', 'delete', 'deployment', 'web');
    await waitFor('web\'s ReplicaSets and pods to be collected', async () => {
      const rs = (await rsOf(r, 'apps')).filter((x) => x.metadata.name.startsWith('web-'));
      const pods = (await podsOf(r, 'apps')).filter((p) => p.metadata.name.startsWith('web-'));
      return rs.length === 0 && pods.length === 0 ? true : undefined;
    });
    // The orphaned ReplicaSet stayed.
    expect((await rsOf(r, 'apps')).map((x) => x.metadata.name.split('-')[0])).toEqual(['keep']);
  });

  it('adopts a matching orphan pod and releases a pod whose labels stop matching', async () => {
    const [rs] = (await rsOf(r, 'apps')).filter((x) => x.metadata.name.startsWith('keep-'));
    const [pod] = (await podsOf(r, 'apps')).filter((p) => owner(p)?.uid === rs.metadata.uid);
    // Relabel one pod: the ReplicaSet releases it and makes a replacement.
    await must(r, '-n', 'apps', 'label', 'pod', pod.metadata.name, 'app=other', '--overwrite');
    await waitFor('the release and a replacement', async () => {
      const pods = await podsOf(r, 'apps');
      const released = pods.find((p) => p.metadata.name === pod.metadata.name);
      const owned = pods.filter((p) => owner(p)?.uid === rs.metadata.uid);
      return released && !owner(released) && owned.length === 2 ? true : undefined;
    });
    // Put the label back: the ReplicaSet adopts it and deletes one pod to get back to 2.
    await must(r, '-n', 'apps', 'label', 'pod', pod.metadata.name, 'app=keep', '--overwrite');
    await waitFor('adoption and a scale-down to 2', async () => {
      const owned = (await podsOf(r, 'apps')).filter((p) => owner(p)?.uid === rs.metadata.uid);
      return owned.length === 2 && (await podsOf(r, 'apps')).length === 2 ? true : undefined;
    });
  });

  it('gives every namespace a default ServiceAccount', async () => {
    await must(r, 'create', 'namespace', 'fresh');
    await waitFor('serviceaccount fresh/default', async () => ((await http(r, 'GET', '/api/v1/namespaces/fresh/serviceaccounts/default')).status === 200 ? true : undefined));
    await must(r, '-n', 'fresh', 'delete', 'serviceaccount', 'default');
    await waitFor('serviceaccount fresh/default to come back', async () => ((await http(r, 'GET', '/api/v1/namespaces/fresh/serviceaccounts/default')).status === 200 ? true : undefined));
  });

  it('reports ProgressDeadlineExceeded when pods never become available', async () => {
    // Pods no node fits stay Pending (unscheduled, so deleted at once later).
    const manifest = JSON.stringify({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'stuck', namespace: 'apps' },
      spec: {
        replicas: 1, progressDeadlineSeconds: 2, selector: { matchLabels: { app: 'stuck' } },
        template: { metadata: { labels: { app: 'stuck' } }, spec: { nodeSelector: { disk: 'ghost' }, containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    expect((await kubectl(r, ['apply', '-f', '-'], manifest)).code).toBe(0);
    const status = await kubectl(r, ['-n', 'apps', 'rollout', 'status', 'deployment/stuck', '--timeout=20s']);
    expect(status.code).toBe(1);
    expect(status.stderr).toContain('error: deployment "stuck" exceeded its progress deadline');
    const d = (await http(r, 'GET', '/apis/apps/v1/namespaces/apps/deployments/stuck')).json;
    const [rs] = (await rsOf(r, 'apps')).filter((x) => x.metadata.name.startsWith('stuck-'));
    expect(d.status.conditions.find((c: any) => c.type === 'Progressing')).toMatchObject({
      status: 'False', reason: 'ProgressDeadlineExceeded', message: `ReplicaSet "${rs.metadata.name}" has timed out progressing.`,
    });
    await must(r, '-n', 'apps', 'delete', 'deployment', 'stuck');
    await waitFor('stuck\'s ReplicaSet and pod to be collected', async () => {
      const left = [...(await rsOf(r, 'apps')), ...(await podsOf(r, 'apps'))].filter((o) => o.metadata.name.startsWith('stuck-'));
      return left.length === 0 ? true : undefined;
    });
  });

  it('lets a namespace with a running Deployment be deleted', async () => {
    await must(r, 'create', 'namespace', 'doomed');
    await must(r, '-n', 'doomed', 'create', 'deployment', 'web', '--image=nginx', '--replicas=2');
    await must(r, '-n', 'doomed', 'rollout', 'status', 'deployment/web', '--timeout=30s');
    await must(r, 'delete', 'namespace', 'doomed', '--wait=false');
    await waitFor('namespace doomed to be gone', async () => ((await http(r, 'GET', '/api/v1/namespaces/doomed')).status === 404 ? true : undefined));
    expect(await podsOf(r, 'doomed')).toEqual([]);
  });

  it('holds the kube-controller-manager Lease and renews it', async () => {
    const lease = (await http(r, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager')).json;
    expect(lease.spec.holderIdentity).toMatch(/^edgeplane-controller-manager_[0-9a-f-]{36}$/);
    expect(lease.spec.leaseDurationSeconds).toBe(15);
    expect(lease.spec.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    await waitFor('a renewal', async () => {
      const next = (await http(r, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager')).json;
      return next.spec.renewTime > lease.spec.renewTime && next.spec.holderIdentity === lease.spec.holderIdentity ? true : undefined;
    }, 10_000);
  });

  it('refuses a forged internal credential', async () => {
    const user = Buffer.from('system:kube-controller-manager').toString('base64url');
    const forged = `edgeplane-internal.v1.${user}.${Buffer.alloc(32, 7).toString('base64url')}`;
    const res = await http(r, 'GET', '/api/v1/pods', undefined, { authorization: `Bearer ${forged}` });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });

  it('rolls out with the Recreate strategy: the old ReplicaSet goes to 0 before the new one grows', async () => {
    const manifest = JSON.stringify({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'rec', namespace: 'apps' },
      spec: {
        replicas: 2, strategy: { type: 'Recreate' }, selector: { matchLabels: { app: 'rec' } },
        template: { metadata: { labels: { app: 'rec' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    const applied = await kubectl(r, ['apply', '-f', '-'], manifest);
    expect(applied.stderr).toBe('');
    await must(r, '-n', 'apps', 'rollout', 'status', 'deployment/rec', '--timeout=30s');
    const [first] = (await rsOf(r, 'apps')).filter((x) => x.metadata.name.startsWith('rec-'));
    await must(r, '-n', 'apps', 'set', 'image', 'deployment/rec', 'c=nginx:1.27');
    await must(r, '-n', 'apps', 'rollout', 'status', 'deployment/rec', '--timeout=30s');
    const rss = (await rsOf(r, 'apps')).filter((x) => x.metadata.name.startsWith('rec-'));
    const second = rss.find((x) => x.metadata.name !== first.metadata.name);
    expect(rss.map((x) => [x.metadata.name, x.spec.replicas]).sort()).toEqual([[first.metadata.name, 0], [second.metadata.name, 2]].sort());
    const messages = (await list(r, '/api/v1/namespaces/apps/events?fieldSelector=involvedObject.name=rec,reason=ScalingReplicaSet')).map((e) => e.message);
    expect(messages).toEqual(expect.arrayContaining([
      `Scaled down replica set ${first.metadata.name} from 2 to 0`, `Scaled up replica set ${second.metadata.name} from 0 to 2`,
    ]));
    // Recreate never surges: the new ReplicaSet was created at 0 and grown straight to 2 once the old pods were gone.
    expect(messages).not.toContain(`Scaled up replica set ${second.metadata.name} from 0 to 1`);
    await must(r, '-n', 'apps', 'delete', 'deployment', 'rec');
    await waitFor('rec\'s ReplicaSets and pods to be collected', async () => {
      const left = [...(await rsOf(r, 'apps')), ...(await podsOf(r, 'apps'))].filter((o) => o.metadata.name.startsWith('rec-'));
      return left.length === 0 ? true : undefined;
    });
  });
});

describe('controllers across a restart', () => {
  let r: Running | undefined;
  afterAll(() => stopTestGateway(r));

  it('finishes a rollout interrupted by a restart with the right pod count and no duplicates', async () => {
    // Without simulated nodes no pod is scheduled or becomes available, so the rollout stops half way:
    // the new ReplicaSet at 1 (maxSurge), the old one at 3 (maxUnavailable 0).
    r = await startTestGateway({ vars: { CONTROLLERS: 'on', SIMULATED_NODES: '0' } });
    await must(r, 'create', 'deployment', 'web', '--image=nginx', '--replicas=3');
    await waitFor('3 pending pods', async () => ((await podsOf(r!, 'default')).length === 3 ? true : undefined));
    await must(r, 'set', 'image', 'deployment/web', 'nginx=nginx:1.27');
    await waitFor('the rollout to stall with 4 pods in 2 ReplicaSets', async () => {
      const rss = await rsOf(r!, 'default');
      return rss.length === 2 && (await podsOf(r!, 'default')).length === 4 ? true : undefined;
    });
    const leasePath = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager';
    const holder = (await http(r, 'GET', leasePath)).json.spec.holderIdentity;
    // A bootstrap role missing from stored state (as after an upgrade that adds one) comes back at start.
    const role = '/apis/rbac.authorization.k8s.io/v1/clusterroles/system:controller:service-account-controller';
    expect((await http(r, 'DELETE', role)).status).toBe(200);
    await stopTestGateway(r, true);

    r = await startTestGateway({ persistDir: r.persistDir, vars: CONTROLLERS_ON });
    const status = await must(r, 'rollout', 'status', 'deployment/web', '--timeout=40s');
    expect(status).toContain('successfully rolled out');
    expect((await http(r, 'GET', role)).json.rules).toEqual([
      { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['create'] },
      { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
    ]);
    const rss = await rsOf(r, 'default');
    expect(rss).toHaveLength(2);
    const current = rss.find((x) => x.metadata.annotations['deployment.kubernetes.io/revision'] === '2');
    // The old pods are deleted gracefully: Terminating until their kubelet has stopped them.
    const pods = await waitFor('3 pods left', async () => {
      const left = await podsOf(r!, 'default');
      return left.length === 3 ? left : undefined;
    });
    expect(pods.every((p) => owner(p).uid === current.metadata.uid && p.status.phase === 'Running')).toBe(true);
    // Exactly the pods the ReplicaSets made: 3 + 1 before the restart, 2 more after, none twice.
    const created = (await list(r, '/api/v1/namespaces/default/events?fieldSelector=reason=SuccessfulCreate')).reduce((n, e) => n + e.count, 0);
    expect(created).toBe(6);
    // The restarted singleton renewed its own Lease rather than waiting it out as a stranger.
    const lease = (await http(r, 'GET', leasePath)).json.spec;
    expect(lease).toMatchObject({ holderIdentity: holder, leaseTransitions: 0 });
  });
});
