// ServiceAccount admission on pods/ephemeralcontainers, as kube 1.32's limitEphemeralContainerSecretReferences
// (plugin/pkg/admission/serviceaccount/admission.go): the pod's account must exist; one annotated
// kubernetes.io/enforce-mountable-secrets limits the secrets ephemeral containers reference by env and envFrom, and
// kube answers that refusal as a plain error: 500 without a reason.
import { describe, expect, it } from 'vitest';
import { executeWrite, type WriteRequest } from '../../../core/writes';
import { lookupGroupResource } from '../../../core/registry';
import type { KubeObject } from '../../../core/object-meta';
import type { AdmissionInputs } from '../../../core/admission/chain';
import { memoryStore } from '../memory-store';
import { statusOf } from '../status-of';

const pods = lookupGroupResource('core/pods')!;
const account = (name: string, extra: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'ns', annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } }, secrets: [{ name: 'allowed' }], ...extra }) as KubeObject;

function run(store: ReturnType<typeof memoryStore>['store'], req: WriteRequest, inputs: AdmissionInputs) {
  return executeWrite(store, { type: pods, now: Date.UTC(2026, 0, 2), newUid: () => 'uid-1', randomSuffix: () => 'x7k2q', admission: { inputs, dryRun: false } }, req);
}
const base: AdmissionInputs = { priorityClasses: [], limitRanges: [], resourceQuotas: [], namespace: { metadata: { name: 'ns' } } };
const debug = (container: Record<string, unknown>): WriteRequest => ({
  verb: 'patch', namespace: 'ns', name: 'web', subresource: 'ephemeralcontainers', patchType: 'application/strategic-merge-patch+json',
  body: JSON.stringify({ spec: { ephemeralContainers: [{ name: 'dbg', image: 'busybox', terminationMessagePolicy: 'File', imagePullPolicy: 'Always', ...container }] } }),
});

function seeded(sa = account('builder')) {
  const { store } = memoryStore();
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { serviceAccountName: 'builder', automountServiceAccountToken: false, containers: [{ name: 'c', image: 'nginx' }] } };
  expect(run(store, { verb: 'create', namespace: 'ns', body: JSON.stringify(pod) }, { ...base, serviceAccounts: { builder: sa } }).code).toBe(201);
  return store;
}

describe('ServiceAccount admission on pods/ephemeralcontainers', () => {
  it('admits ephemeral containers referencing only the secrets the account lists', () => {
    const store = seeded();
    const res = run(store, debug({ env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'allowed', key: 'k' } } }], envFrom: [{ secretRef: { name: 'allowed' } }] }), { ...base, serviceAccounts: { builder: account('builder') } });
    expect(res.code).toBe(200);
  });

  it("refuses other secrets by env and envFrom with kube's plain-error 500", () => {
    const store = seeded();
    const inputs = { ...base, serviceAccounts: { builder: account('builder') } };
    expect(statusOf(() => run(store, debug({ env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } }] }), inputs))).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500,
      message: 'ephemeral container dbg with envVar TOKEN referencing secret.secretName="other" is not allowed because service account builder does not reference that secret',
    });
    expect(statusOf(() => run(store, debug({ envFrom: [{ secretRef: { name: 'other' } }] }), inputs)).message)
      .toBe('ephemeral container dbg with envFrom referencing secret.secretName="other" is not allowed because service account builder does not reference that secret');
    // Without the annotation the account limits nothing.
    const open = { ...base, serviceAccounts: { builder: account('builder', { metadata: { name: 'builder', namespace: 'ns' } }) } };
    expect(run(store, debug({ envFrom: [{ secretRef: { name: 'other' } }] }), open).code).toBe(200);
  });

  it('refuses when the account is gone (403, as on create), and fails closed without it', () => {
    const store = seeded();
    expect(statusOf(() => run(store, debug({}), { ...base, serviceAccounts: { builder: null } }))).toMatchObject({
      code: 403, reason: 'Forbidden', message: 'pods "web" is forbidden: error looking up service account ns/builder: serviceaccount "builder" not found',
    });
    expect(statusOf(() => run(store, debug({}), base)).code).toBe(500);
  });
});
