// Workload controllers end to end: kubectl against the real gateway with the controller manager running
// the Job, TTL-after-finished, ReplicationController, StatefulSet and DaemonSet loops. Pods are placed and
// run by the pod-readiness stand-in (nodes node-1..3); it runs a Job's pods to completion (Failed when
// annotated edgeplane.dev/simulate-exit-code: "1").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running, waitFor } from './fixtures';

const CONTROLLERS_ON = { CONTROLLERS: 'on', SIMULATED_NODES: '3' };

async function must(r: Running, args: string[], stdin?: string) {
  const res = await kubectl(r, args, stdin);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}

const get = async (r: Running, path: string): Promise<any> => (await http(r, 'GET', path)).json;
const podsOf = async (r: Running, ns: string, selector: string): Promise<any[]> =>
  (await get(r, `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(selector)}`)).items;
const owner = (o: any) => o.metadata.ownerReferences?.find((x: any) => x.controller);
const NS = 'wl';

function jobYaml(name: string, extra: { completions?: number; parallelism?: number; backoffLimit?: number; ttl?: number; exitCode?: string; mode?: string }): string {
  return `apiVersion: batch/v1
kind: Job
metadata: {name: ${name}, namespace: ${NS}}
spec:
${extra.completions !== undefined ? `  completions: ${extra.completions}\n` : ''}${extra.parallelism !== undefined ? `  parallelism: ${extra.parallelism}\n` : ''}${extra.backoffLimit !== undefined ? `  backoffLimit: ${extra.backoffLimit}\n` : ''}${extra.ttl !== undefined ? `  ttlSecondsAfterFinished: ${extra.ttl}\n` : ''}${extra.mode ? `  completionMode: ${extra.mode}\n` : ''}  template:
    metadata:
      annotations: {edgeplane.dev/simulate-exit-code: "${extra.exitCode ?? '0'}"}
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox}]
`;
}

describe('workload controllers', () => {
  let r: Running;
  beforeAll(async () => {
    r = await startTestGateway({ vars: CONTROLLERS_ON });
    await must(r, ['create', 'namespace', NS]);
  });
  afterAll(() => stopTestGateway(r));

  it('runs a Job with completions 3 / parallelism 2 to Complete, counting pods through the tracking finalizer', async () => {
    await must(r, ['apply', '-f', '-'], jobYaml('pi', { completions: 3, parallelism: 2 }));
    const out = await must(r, ['-n', NS, 'wait', '--for=condition=complete', 'job/pi', '--timeout=30s']);
    expect(out.trim()).toBe('job.batch/pi condition met');
    const job = await get(r, `/apis/batch/v1/namespaces/${NS}/jobs/pi`);
    expect(job.status).toMatchObject({ succeeded: 3, ready: 0, terminating: 0, uncountedTerminatedPods: {} });
    expect(job.status.active).toBeUndefined();
    expect(job.status.failed).toBeUndefined();
    expect(job.status.conditions.map((c: any) => [c.type, c.status, c.reason])).toEqual([
      ['SuccessCriteriaMet', 'True', 'CompletionsReached'], ['Complete', 'True', 'CompletionsReached'],
    ]);
    expect(job.status.conditions[1].message).toBe('Reached expected number of succeeded pods');
    expect(Date.parse(job.status.completionTime)).toBeGreaterThanOrEqual(Date.parse(job.status.startTime));
    const pods = await podsOf(r, NS, 'batch.kubernetes.io/job-name=pi');
    expect(pods).toHaveLength(3);
    for (const p of pods) {
      expect(p.status.phase).toBe('Succeeded');
      expect(p.metadata.finalizers ?? []).not.toContain('batch.kubernetes.io/job-tracking');
      expect(p.metadata.generateName).toBe('pi-');
      expect(owner(p)).toMatchObject({ kind: 'Job', name: 'pi', uid: job.metadata.uid });
    }
    const describe = await must(r, ['-n', NS, 'describe', 'job', 'pi']);
    expect(describe).toMatch(/Normal\s+SuccessfulCreate\s+.*job-controller\s+Created pod: pi-/);
    expect(describe).toMatch(/Normal\s+Completed\s+.*job-controller\s+Job completed/);
    expect(describe).toMatch(/Pods Statuses:\s+0 Active \(0 Ready\) \/ 3 Succeeded \/ 0 Failed/);
  });

  it('runs an Indexed Job with one pod per completion index', async () => {
    await must(r, ['apply', '-f', '-'], jobYaml('idx', { completions: 3, parallelism: 3, mode: 'Indexed' }));
    await must(r, ['-n', NS, 'wait', '--for=condition=complete', 'job/idx', '--timeout=30s']);
    const job = await get(r, `/apis/batch/v1/namespaces/${NS}/jobs/idx`);
    expect(job.status).toMatchObject({ succeeded: 3, completedIndexes: '0-2' });
    const pods = await podsOf(r, NS, 'batch.kubernetes.io/job-name=idx');
    const indexes = pods.map((p) => p.metadata.annotations['batch.kubernetes.io/job-completion-index']).sort();
    expect(indexes).toEqual(['0', '1', '2']);
    for (const p of pods) {
      const ix = p.metadata.labels['batch.kubernetes.io/job-completion-index'];
      expect(p.metadata.generateName).toBe(`idx-${ix}-`);
      expect(p.spec.hostname).toBe(`idx-${ix}`);
    }
  });

  it('fails a Job whose pods keep failing with BackoffLimitExceeded', async () => {
    await must(r, ['apply', '-f', '-'], jobYaml('bad', { backoffLimit: 1, exitCode: '1' }));
    // backoffLimit 1: a first failure, the 10 s pod backoff, a second failure.
    const out = await must(r, ['-n', NS, 'wait', '--for=condition=failed', 'job/bad', '--timeout=40s']);
    expect(out.trim()).toBe('job.batch/bad condition met');
    const job = await get(r, `/apis/batch/v1/namespaces/${NS}/jobs/bad`);
    expect(job.status).toMatchObject({ failed: 2, uncountedTerminatedPods: {} });
    expect(job.status.conditions.map((c: any) => [c.type, c.reason, c.message])).toEqual([
      ['FailureTarget', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
      ['Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
    ]);
    expect(job.status.completionTime).toBeUndefined();
    const describe = await must(r, ['-n', NS, 'describe', 'job', 'bad']);
    expect(describe).toMatch(/Warning\s+BackoffLimitExceeded\s+.*job-controller\s+Job has reached the specified backoff limit/);
  }, 60_000);

  it('fails a Job past activeDeadlineSeconds with DeadlineExceeded, deleting its running pods', async () => {
    // Pinned to a node nobody runs, the pod stays Pending until the deadline.
    await must(r, ['apply', '-f', '-'], `apiVersion: batch/v1
kind: Job
metadata: {name: slow, namespace: ${NS}}
spec:
  activeDeadlineSeconds: 2
  template:
    spec:
      restartPolicy: Never
      nodeName: node-9
      containers: [{name: main, image: busybox}]
`);
    await waitFor('job/slow to have its pod', async () => ((await podsOf(r, NS, 'batch.kubernetes.io/job-name=slow')).length === 1 ? true : undefined));
    const out = await must(r, ['-n', NS, 'wait', '--for=condition=failed', 'job/slow', '--timeout=20s']);
    expect(out.trim()).toBe('job.batch/slow condition met');
    const job = await get(r, `/apis/batch/v1/namespaces/${NS}/jobs/slow`);
    expect(job.status.conditions.map((c: any) => [c.type, c.reason, c.message])).toEqual([
      ['FailureTarget', 'DeadlineExceeded', 'Job was active longer than specified deadline'],
      ['Failed', 'DeadlineExceeded', 'Job was active longer than specified deadline'],
    ]);
    expect(job.status).toMatchObject({ failed: 1, terminating: 0, uncountedTerminatedPods: {} });
    expect(await podsOf(r, NS, 'batch.kubernetes.io/job-name=slow')).toEqual([]);
  });

  it('deletes a finished Job after ttlSecondsAfterFinished', async () => {
    await must(r, ['apply', '-f', '-'], jobYaml('short', { ttl: 1 }));
    await must(r, ['-n', NS, 'wait', '--for=condition=complete', 'job/short', '--timeout=30s']);
    await waitFor('the TTL-after-finished controller to delete job/short', async () =>
      (await http(r, 'GET', `/apis/batch/v1/namespaces/${NS}/jobs/short`)).status === 404 ? true : undefined);
  });

  it('scales a ReplicationController with kubectl scale rc', async () => {
    await must(r, ['apply', '-f', '-'], `apiVersion: v1
kind: ReplicationController
metadata: {name: rc1, namespace: ${NS}}
spec:
  replicas: 2
  template:
    metadata: {labels: {app: rc1}}
    spec: {containers: [{name: main, image: nginx}]}
`);
    const rc = await get(r, `/api/v1/namespaces/${NS}/replicationcontrollers/rc1`);
    expect(rc.spec.selector).toEqual({ app: 'rc1' }); // defaulted from the template's labels
    expect(rc.metadata.labels).toEqual({ app: 'rc1' });
    const ready = (n: number) => waitFor(`rc1 to have ${n} ready replicas`, async () => {
      const cur = await get(r, `/api/v1/namespaces/${NS}/replicationcontrollers/rc1`);
      const pods = (await podsOf(r, NS, 'app=rc1')).filter((p) => !p.metadata.deletionTimestamp);
      return cur.status.readyReplicas === n && cur.status.replicas === n && pods.length === n ? pods : undefined;
    });
    const pods = await ready(2);
    for (const p of pods) expect(owner(p)).toMatchObject({ apiVersion: 'v1', kind: 'ReplicationController', name: 'rc1', uid: rc.metadata.uid });
    expect((await must(r, ['-n', NS, 'scale', 'rc', 'rc1', '--replicas=4'])).trim()).toBe('replicationcontroller/rc1 scaled');
    await ready(4);
    await must(r, ['-n', NS, 'scale', 'rc', 'rc1', '--replicas=1']);
    await ready(1);
    const table = (await must(r, ['-n', NS, 'get', 'rc', 'rc1', '-o', 'wide'])).split('\n');
    expect(table[0].split(/\s+/)).toEqual(['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(table[1].split(/\s+/)).toEqual(['rc1', '1', '1', '1', expect.stringMatching(/^\d+s$/), 'main', 'nginx', 'app=rc1']);
    const describe = await must(r, ['-n', NS, 'describe', 'rc', 'rc1']);
    expect(describe).toMatch(/Normal\s+SuccessfulCreate\s+.*replication-controller\s+Created pod: rc1-/);
    expect(describe).toMatch(/Normal\s+SuccessfulDelete\s+.*replication-controller\s+Deleted pod: rc1-/);
  });
});

describe('StatefulSet controller', () => {
  let r: Running;
  beforeAll(async () => {
    r = await startTestGateway({ vars: CONTROLLERS_ON });
    await must(r, ['create', 'namespace', NS]);
  });
  afterAll(() => stopTestGateway(r));

  const sts = (image: string, replicas: number, partition?: number) => `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web, namespace: ${NS}}
spec:
  replicas: ${replicas}
  serviceName: web
  selector: {matchLabels: {app: web}}
${partition !== undefined ? `  updateStrategy: {type: RollingUpdate, rollingUpdate: {partition: ${partition}}}\n` : ''}  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: ${image}}]}
`;
  const stsPods = async () => (await podsOf(r, NS, 'app=web')).filter((p) => !p.metadata.deletionTimestamp);
  const createdAt = (p: any) => p.metadata.creationTimestamp;

  it('creates web-0, web-1, web-2 in order, each after the one before is Ready, and scales down in reverse', async () => {
    await must(r, ['apply', '-f', '-'], sts('nginx:1.26', 3));
    await must(r, ['-n', NS, 'rollout', 'status', 'statefulset/web', '--timeout=30s']);
    const pods = await stsPods();
    expect(pods.map((p) => p.metadata.name).sort()).toEqual(['web-0', 'web-1', 'web-2']);
    const byName = Object.fromEntries(pods.map((p) => [p.metadata.name, p]));
    // OrderedReady: web-n is created only after web-(n-1) reports Ready.
    for (const [prev, next] of [['web-0', 'web-1'], ['web-1', 'web-2']]) {
      const readyAt = byName[prev].status.conditions.find((c: any) => c.type === 'Ready').lastTransitionTime;
      expect(Date.parse(createdAt(byName[next]))).toBeGreaterThanOrEqual(Date.parse(readyAt));
    }
    const set = await get(r, `/apis/apps/v1/namespaces/${NS}/statefulsets/web`);
    const rev = set.status.updateRevision;
    expect(rev).toMatch(/^web-[a-z0-9]+$/);
    expect(set.status).toMatchObject({ replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, availableReplicas: 3, currentRevision: rev, collisionCount: 0 });
    for (const p of pods) {
      expect(p.metadata.labels).toMatchObject({ 'controller-revision-hash': rev, 'statefulset.kubernetes.io/pod-name': p.metadata.name, 'apps.kubernetes.io/pod-index': p.metadata.name.slice(4) });
      expect(p.spec).toMatchObject({ hostname: p.metadata.name, subdomain: 'web' });
      expect(owner(p)).toMatchObject({ kind: 'StatefulSet', name: 'web', uid: set.metadata.uid });
    }
    const revisions = (await get(r, `/apis/apps/v1/namespaces/${NS}/controllerrevisions`)).items;
    expect(revisions.map((x: any) => [x.metadata.name, x.revision])).toEqual([[rev, 1]]);

    // Scale down: web-2 goes first, then web-1 (SuccessfulDelete events in that order).
    await must(r, ['-n', NS, 'scale', 'statefulset', 'web', '--replicas=1']);
    await waitFor('web to scale down to web-0 only', async () => {
      const names = (await podsOf(r, NS, 'app=web')).map((p) => p.metadata.name);
      return names.length === 1 && names[0] === 'web-0' ? true : undefined;
    });
    const events = (await get(r, `/api/v1/namespaces/${NS}/events?fieldSelector=involvedObject.name=web,reason=SuccessfulDelete`)).items
      .sort((a: any, b: any) => a.metadata.creationTimestamp.localeCompare(b.metadata.creationTimestamp) || a.metadata.name.localeCompare(b.metadata.name));
    expect(events.map((e: any) => e.message)).toEqual(['delete Pod web-2 in StatefulSet web successful', 'delete Pod web-1 in StatefulSet web successful']);
    const creates = await must(r, ['-n', NS, 'describe', 'statefulset', 'web']);
    expect(creates).toMatch(/Normal\s+SuccessfulCreate\s+.*statefulset-controller\s+create Pod web-0 in StatefulSet web successful/);
  }, 60_000);

  it('rolls out a new template from the highest ordinal down to the partition', async () => {
    await must(r, ['apply', '-f', '-'], sts('nginx:1.26', 3));
    await must(r, ['-n', NS, 'rollout', 'status', 'statefulset/web', '--timeout=30s']);
    const before = (await get(r, `/apis/apps/v1/namespaces/${NS}/statefulsets/web`)).status.currentRevision;
    await must(r, ['apply', '-f', '-'], sts('nginx:1.27', 3, 1));
    const images = async () => Object.fromEntries((await stsPods()).map((p) => [p.metadata.name, p.spec.containers[0].image]));
    const settled = await waitFor('web-2 and web-1 to run nginx:1.27 with web-0 left on nginx:1.26', async () => {
      const set = await get(r, `/apis/apps/v1/namespaces/${NS}/statefulsets/web`);
      const im = await images();
      return set.status.updatedReplicas === 2 && set.status.readyReplicas === 3 && im['web-0'] === 'nginx:1.26' && im['web-1'] === 'nginx:1.27' && im['web-2'] === 'nginx:1.27' ? set : undefined;
    });
    expect(settled.status.currentRevision).toBe(before);
    expect(settled.status.updateRevision).not.toBe(before);
    expect(settled.status).toMatchObject({ replicas: 3, currentReplicas: 1, updatedReplicas: 2 });
    const deletes = (await get(r, `/api/v1/namespaces/${NS}/events?fieldSelector=involvedObject.name=web,reason=SuccessfulDelete`)).items.map((e: any) => e.message);
    // web-2 was replaced before web-1 (the same messages as the scale-down's, counted up).
    expect(deletes).toContain('delete Pod web-2 in StatefulSet web successful');
    // Dropping the partition finishes the rollout; the current revision follows.
    await must(r, ['apply', '-f', '-'], sts('nginx:1.27', 3, 0));
    const done = await waitFor('web-0 to be updated and the rollout completed', async () => {
      const set = await get(r, `/apis/apps/v1/namespaces/${NS}/statefulsets/web`);
      return set.status.currentRevision === set.status.updateRevision && set.status.updatedReplicas === 3 && set.status.readyReplicas === 3 ? set : undefined;
    });
    expect(await images()).toEqual({ 'web-0': 'nginx:1.27', 'web-1': 'nginx:1.27', 'web-2': 'nginx:1.27' });
    const revisions = (await get(r, `/apis/apps/v1/namespaces/${NS}/controllerrevisions`)).items;
    expect(revisions.map((x: any) => [x.metadata.name, x.revision]).sort()).toEqual([[before, 1], [done.status.updateRevision, 2]].sort());
  }, 60_000);
});

describe('DaemonSet controller', () => {
  let r: Running;
  beforeAll(async () => {
    r = await startTestGateway({ vars: CONTROLLERS_ON });
    await must(r, ['create', 'namespace', NS]);
  });
  afterAll(() => stopTestGateway(r));

  const ds = (name: string, image: string, extra = '') => `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ${name}, namespace: ${NS}}
spec:
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
${extra}      containers: [{name: agent, image: ${image}}]
`;
  const dsPods = async (name: string) => (await podsOf(r, NS, `app=${name}`)).filter((p) => !p.metadata.deletionTimestamp);

  it('runs one pod per node, pinned by a metadata.name node affinity, and rolls out a new template', async () => {
    await must(r, ['apply', '-f', '-'], ds('agent', 'busybox:1.36'));
    await must(r, ['-n', NS, 'rollout', 'status', 'daemonset/agent', '--timeout=30s']);
    const set = await get(r, `/apis/apps/v1/namespaces/${NS}/daemonsets/agent`);
    expect(set.status).toMatchObject({ desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 3, numberAvailable: 3, updatedNumberScheduled: 3, numberMisscheduled: 0, observedGeneration: 1 });
    const pods = await dsPods('agent');
    expect(pods.map((p) => p.spec.nodeName).sort()).toEqual(['node-1', 'node-2', 'node-3']);
    const revisions = (await get(r, `/apis/apps/v1/namespaces/${NS}/controllerrevisions`)).items;
    expect(revisions).toHaveLength(1);
    const hash = revisions[0].metadata.labels['controller-revision-hash'];
    expect(revisions[0].metadata.name).toBe(`agent-${hash}`);
    for (const p of pods) {
      expect(p.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms)
        .toEqual([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [p.spec.nodeName] }] }]);
      expect(p.metadata.labels).toMatchObject({ 'controller-revision-hash': hash, 'pod-template-generation': '1' });
      expect(p.spec.tolerations).toEqual(expect.arrayContaining([
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
        { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
      ]));
      expect(owner(p)).toMatchObject({ kind: 'DaemonSet', name: 'agent', uid: set.metadata.uid });
    }

    await must(r, ['apply', '-f', '-'], ds('agent', 'busybox:1.37'));
    await must(r, ['-n', NS, 'rollout', 'status', 'daemonset/agent', '--timeout=30s']);
    const after = await waitFor('every agent pod to run busybox:1.37, one per node', async () => {
      const ps = await dsPods('agent');
      return ps.length === 3 && ps.every((p) => p.spec.containers[0].image === 'busybox:1.37') ? ps : undefined;
    });
    expect(after.map((p) => p.spec.nodeName).sort()).toEqual(['node-1', 'node-2', 'node-3']);
    const done = await get(r, `/apis/apps/v1/namespaces/${NS}/daemonsets/agent`);
    expect(done.status).toMatchObject({ desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3, observedGeneration: 2 });
    expect((await get(r, `/apis/apps/v1/namespaces/${NS}/controllerrevisions`)).items).toHaveLength(2);
  }, 60_000);

  it('places pods only on nodes matching the nodeSelector and not on tainted ones', async () => {
    await must(r, ['label', 'node', 'node-2', 'disk=ssd']);
    await must(r, ['apply', '-f', '-'], ds('ssd', 'busybox', '      nodeSelector: {disk: ssd}\n'));
    const pods = await waitFor('one ssd pod on node-2', async () => {
      const ps = await dsPods('ssd');
      return ps.length === 1 && ps[0].spec.nodeName === 'node-2' ? ps : undefined;
    });
    expect(pods).toHaveLength(1);
    await must(r, ['taint', 'node', 'node-3', 'dedicated=infra:NoSchedule']);
    await must(r, ['apply', '-f', '-'], ds('tolerant', 'busybox'));
    const set = await waitFor('the tolerant DaemonSet to count 2 desired pods (node-3 is tainted)', async () => {
      const s = await get(r, `/apis/apps/v1/namespaces/${NS}/daemonsets/tolerant`);
      return s.status.desiredNumberScheduled === 2 && s.status.numberReady === 2 ? s : undefined;
    });
    expect(set.status.currentNumberScheduled).toBe(2);
    expect((await dsPods('tolerant')).map((p) => p.spec.nodeName).sort()).toEqual(['node-1', 'node-2']);
  }, 60_000);
});
