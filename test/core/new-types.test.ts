// The newly served types' pure parts: defaults (kube's defaults.go per group), Tables (kube's printers), the
// autoscaling/v1 view over v2, the synthetic pods/log and its options, and the ephemeral-container field check.
import { describe, expect, it } from 'vitest';
import { applyDefaults } from '../../core/admission/defaults';
import { toTable } from '../../core/tables/table';
import { lookupGroupResource, lookupType } from '../../core/registry';
import { hpaFromV1, hpaToV1 } from '../../core/autoscaling/hpa-v1';
import { parsePodLogOptions, renderLog, rfc3339Nano, truncateBytes, type LogLine } from '../../core/pods/synthetic-log';
import { StatusError } from '../../core/status';
import type { KubeObject } from '../../core/object-meta';
import { executeWrite, type WriteStore } from '../../core/writes';
import { memoryStore } from './memory-store';

const NOW = Date.parse('2026-07-01T12:00:00Z');
const meta = (name: string) => ({ name, namespace: 'default', creationTimestamp: new Date(NOW - 300_000).toISOString() });
const defaulted = (obj: Record<string, unknown>) => {
  const o = structuredClone(obj) as KubeObject;
  applyDefaults(o);
  return o as any;
};

describe('defaults of the new groups', () => {
  it('CronJob: Allow, not suspended, history 3 and 1, the job template defaulted as a pod template', () => {
    const cj = defaulted({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: meta('cj'), spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } } } } });
    expect(cj.spec).toMatchObject({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 });
    expect(cj.spec.jobTemplate.spec.template.spec).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler' });
  });

  it('StorageClass: Delete, Immediate; PriorityClass: PreemptLowerPriority; webhooks: kube\'s per-hook defaults', () => {
    expect(defaulted({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 's' }, provisioner: 'p' })).toMatchObject({ reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
    expect(defaulted({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'p' }, value: 1 })).toMatchObject({ preemptionPolicy: 'PreemptLowerPriority' });
    const hook = defaulted({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'm' },
      webhooks: [{ name: 'm.example.com', clientConfig: { url: 'https://x' }, sideEffects: 'None', admissionReviewVersions: ['v1'], rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }] }).webhooks[0];
    expect(hook).toMatchObject({ failurePolicy: 'Fail', matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, timeoutSeconds: 10, reinvocationPolicy: 'Never' });
    expect(hook.rules[0].scope).toBe('*');
  });

  it('a custom resource sharing a built-in kind\'s name gets none of its defaults', () => {
    const other = defaulted({ apiVersion: 'crd.projectcalico.org/v1', kind: 'NetworkPolicy', metadata: { name: 'n' }, spec: {} });
    expect(other.spec).toEqual({});
    expect(defaulted({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: meta('n'), spec: {} }).spec.policyTypes).toEqual(['Ingress']);
  });
});

/** The cells of a one-object table, by column name (wide columns included). */
function cells(gr: string, obj: object): Record<string, unknown> {
  const table = toTable(lookupGroupResource(gr)!, [obj], { now: NOW });
  return Object.fromEntries(table.columnDefinitions!.map((c, i) => [c.name, table.rows[0]!.cells[i]]));
}
const columns = (gr: string) => toTable(lookupGroupResource(gr)!, [], { now: NOW }).columnDefinitions!.filter((c) => !c.priority).map((c) => c.name);

describe('Tables of the new types (kube\'s printers)', () => {
  it.each([
    ['core/resourcequotas', ['Name', 'Age', 'Request', 'Limit']],
    ['core/persistentvolumeclaims', ['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass', 'Age']],
    ['batch/cronjobs', ['Name', 'Schedule', 'Timezone', 'Suspend', 'Active', 'Last Schedule', 'Age']],
    ['policy/poddisruptionbudgets', ['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age']],
    ['autoscaling/horizontalpodautoscalers', ['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age']],
    ['scheduling.k8s.io/priorityclasses', ['Name', 'Value', 'Global-Default', 'Age', 'PreemptionPolicy']],
    ['storage.k8s.io/storageclasses', ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age']],
  ])('%s', (gr, expected) => {
    expect(columns(gr)).toEqual(expected);
  });

  it('cells: a PDB without maxUnavailable, an HPA\'s CPU target, a pending CSR, a default StorageClass', () => {
    expect(cells('policy/poddisruptionbudgets', { metadata: meta('p'), spec: { minAvailable: 1 }, status: { disruptionsAllowed: 0 } }))
      .toMatchObject({ 'Min Available': '1', 'Max Unavailable': 'N/A', 'Allowed Disruptions': 0 });
    expect(cells('autoscaling/horizontalpodautoscalers', {
      metadata: meta('h'), spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] }, status: { currentReplicas: 0 },
    })).toMatchObject({ Reference: 'Deployment/web', Targets: 'cpu: <unknown>/50%', MinPods: '1', MaxPods: 5 });
    expect(cells('certificates.k8s.io/certificatesigningrequests', { metadata: { name: 'c', creationTimestamp: meta('c').creationTimestamp }, spec: { signerName: 'kubernetes.io/kube-apiserver-client', username: 'alice' }, status: {} }))
      .toMatchObject({ SignerName: 'kubernetes.io/kube-apiserver-client', Requestor: 'alice', Condition: 'Pending' });
    expect(cells('storage.k8s.io/storageclasses', { metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }, provisioner: 'p' }).Name)
      .toBe('standard (default)');
  });
});

describe('autoscaling/v1 over the v2 store', () => {
  const v1 = {
    apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h', namespace: 'ns' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 60 },
  };

  it('writes the CPU target as a v2 Resource metric, and reads it back as v1 shows it', () => {
    const v2 = hpaFromV1(structuredClone(v1));
    expect(v2.apiVersion).toBe('autoscaling/v2');
    expect(v2.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }]);
    const back = hpaToV1(v2);
    expect(back.apiVersion).toBe('autoscaling/v1');
    expect(back.spec).toMatchObject({ minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 60 });
  });

  it('keeps the v2 metrics v1 cannot show in its annotation, and a Status passes unchanged', () => {
    const v2 = {
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 3, metrics: [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } }] },
    };
    const shown = hpaToV1(v2);
    expect(shown.spec.targetCPUUtilizationPercentage).toBeUndefined();
    expect(Object.keys(shown.metadata.annotations ?? {})).toContain('autoscaling.alpha.kubernetes.io/metrics');
    const status = { kind: 'Status', apiVersion: 'v1', code: 404 };
    expect(hpaToV1(status)).toBe(status);
    expect(lookupType('autoscaling', 'v1', 'horizontalpodautoscalers')?.viewOf).toBe('autoscaling/horizontalpodautoscalers');
  });
});

describe('pods/log', () => {
  const lines: LogLine[] = [
    { time: NOW - 120_000, text: 'started' },
    { time: NOW - 60_000, text: 'ready' },
    { time: NOW - 1_000, text: 'probe ok' },
  ];
  const opts = (q: string) => parsePodLogOptions(new URLSearchParams(q), 'web');

  it('selects by --tail, --since, --limit-bytes and prints --timestamps as RFC3339Nano', () => {
    expect(renderLog(lines, opts(''), NOW)).toBe('started\nready\nprobe ok\n');
    expect(renderLog(lines, opts('tailLines=1'), NOW)).toBe('probe ok\n');
    expect(renderLog(lines, opts('tailLines=0'), NOW)).toBe('');
    expect(renderLog(lines, opts('sinceSeconds=90'), NOW)).toBe('ready\nprobe ok\n');
    expect(renderLog(lines, opts('limitBytes=10'), NOW)).toBe('started\nre');
    expect(renderLog(lines.slice(0, 1), opts('timestamps=true'), NOW)).toBe('2026-07-01T11:58:00Z started\n');
    expect(rfc3339Nano(Date.parse('2026-07-01T11:58:00.120Z'))).toBe('2026-07-01T11:58:00.12Z');
    expect(truncateBytes('héllo', 2)).toBe('h');
  });

  it('refuses bad numbers and times with kube\'s texts', () => {
    const err = (q: string) => {
      try {
        opts(q);
      } catch (e) {
        return (e as StatusError).status.message;
      }
      return undefined;
    };
    expect(err('tailLines=x')).toBe('strconv.ParseInt: parsing "x": invalid syntax');
    expect(err('sinceTime=yesterday')).toContain('parsing time "yesterday"');
    expect(err('sinceSeconds=0')).toContain('sinceSeconds');
  });
});

describe('PriorityClass (ValidatePriorityClass, the system classes)', () => {
  const pcs = lookupGroupResource('scheduling.k8s.io/priorityclasses')!;
  const env = () => ({ type: pcs, now: NOW, newUid: () => 'uid', randomSuffix: () => 'abcde' });
  const write = (store: WriteStore, req: object) => {
    try {
      return executeWrite(store, env(), req as never);
    } catch (e) {
      return { code: (e as StatusError).status.code, body: (e as StatusError).status };
    }
  };
  const create = (store: WriteStore, body: object) => write(store, { verb: 'create', namespace: '', body: JSON.stringify({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', ...body }) });

  it('reserves the system- prefix and caps user values, with kube\'s messages', () => {
    const { store } = memoryStore();
    const causes = (res: { body: unknown }) => (res.body as { details?: { causes?: unknown[] } }).details?.causes;
    expect(causes(create(store, { metadata: { name: 'system-mine' }, value: 1 }))).toEqual([{ reason: 'FieldValueForbidden', field: 'metadata.name',
      message: "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class" }]);
    expect(causes(create(store, { metadata: { name: 'system-node-critical' }, value: 5 }))?.[0]).toMatchObject({ message: expect.stringContaining('value of system-node-critical PriorityClass must be 2000001000') });
    expect(causes(create(store, { metadata: { name: 'huge' }, value: 1_000_000_001 }))).toEqual([{ reason: 'FieldValueForbidden', field: 'value', message: 'Forbidden: maximum allowed value of a user defined priority is 1000000000' }]);
    expect(create(store, { metadata: { name: 'system-node-critical' }, value: 2000001000 }).code).toBe(201);
    expect(create(store, { metadata: { name: 'high' }, value: 1000 }).code).toBe(201);
    const changed = write(store, { verb: 'patch', namespace: '', name: 'high', subresource: '', patchType: 'application/merge-patch+json', body: JSON.stringify({ value: 5 }) });
    expect(causes(changed)).toEqual([{ reason: 'FieldValueForbidden', field: 'value', message: 'Forbidden: may not be changed in an update.' }]);
  });

  it('refuses to delete a system class, deletes the others', () => {
    const { store } = memoryStore();
    create(store, { metadata: { name: 'system-cluster-critical' }, value: 2000000000 });
    create(store, { metadata: { name: 'high' }, value: 1000 });
    const del = (name: string) => write(store, { verb: 'delete', namespace: '', name, body: '', query: {} });
    expect(del('system-cluster-critical')).toMatchObject({ code: 403, body: { reason: 'Forbidden',
      message: 'priorityclasses.scheduling.k8s.io "system-cluster-critical" is forbidden: this is a system priority class and cannot be deleted' } });
    expect(del('high').code).toBe(200);
  });
});

describe('CertificateSigningRequest create (the registry strategy PrepareForCreate)', () => {
  const csrs = lookupGroupResource('certificates.k8s.io/certificatesigningrequests')!;
  const body = JSON.stringify({
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'c' },
    spec: { request: 'LS0t', signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], username: 'system:admin', groups: ['system:masters'] },
    status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Forged' }], certificate: 'LS0t' },
  });
  const create = (user?: { username: string; uid: string; groups: string[]; extra?: Record<string, string[]> }) => {
    const { store } = memoryStore();
    const env = { type: csrs, now: NOW, newUid: () => 'uid', randomSuffix: () => 'abcde', ...(user ? { admission: { inputs: { user }, dryRun: false } } : {}) };
    const res = executeWrite(store, env as never, { verb: 'create', namespace: '', body } as never) as { body: unknown };
    return (typeof res.body === 'string' ? JSON.parse(res.body) : res.body) as any;
  };

  it('records who asked, whatever the body said, and starts with no status', () => {
    const got = create({ username: 'jane', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } });
    expect(got.spec).toMatchObject({ username: 'jane', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } });
    expect(got.status).toEqual({});
  });

  it('a write with no user (the server\'s own) keeps no requestor the body claimed', () => {
    const got = create();
    expect(got.spec.username).toBeUndefined();
    expect(got.spec.groups).toBeUndefined();
  });
});
