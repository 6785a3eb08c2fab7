// core/strategies: every type's strategy, and the write path calling it rather than branching on a kind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { strategyFor } from '../../../core/strategies';
import { DEFAULT_STRATEGY } from '../../../core/strategies/default';
import { POD_STRATEGY } from '../../../core/strategies/pod';
import { SERVICE_STRATEGY } from '../../../core/strategies/service';
import { NAMESPACE_STRATEGY } from '../../../core/strategies/namespace';
import { EVENT_STRATEGY } from '../../../core/strategies/event';
import { CRD_STRATEGY } from '../../../core/strategies/crd';
import { CSR_STRATEGY } from '../../../core/strategies/subresource-updates';
import { PRIORITY_CLASS_STRATEGY } from '../../../core/strategies/priority-class';
import { lookupGroupResource, lookupType, setCustomTypes } from '../../../core/registry';
import { typesFromCrd } from '../../../core/crd/crd-types';
import type { Crd } from '../../../core/crd/crd-object';
import type { KubeObject } from '../../../core/object-meta';
import { executeWrite } from '../../../core/writes';
import { memoryStore } from '../memory-store';

// A custom resource whose kind is a built-in's name: kube keys strategies by group and resource, never by kind.
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'pods.example.com' },
  spec: {
    group: 'example.com', scope: 'Namespaced', names: { plural: 'pods', kind: 'Pod' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
  status: { acceptedNames: { plural: 'pods', singular: 'pod', kind: 'Pod', listKind: 'PodList' }, conditions: [{ type: 'Established', status: 'True' }] },
} as unknown as Crd;

beforeAll(() => setCustomTypes(typesFromCrd(crd)));
afterAll(() => setCustomTypes([]));

describe('strategyFor', () => {
  it.each([
    ['core/pods', POD_STRATEGY], ['core/services', SERVICE_STRATEGY], ['core/namespaces', NAMESPACE_STRATEGY],
    ['core/events', EVENT_STRATEGY], ['apiextensions.k8s.io/customresourcedefinitions', CRD_STRATEGY], ['apps/deployments', DEFAULT_STRATEGY],
    ['certificates.k8s.io/certificatesigningrequests', CSR_STRATEGY], ['scheduling.k8s.io/priorityclasses', PRIORITY_CLASS_STRATEGY],
  ])('gives %s its strategy', (gr, strategy) => {
    expect(strategyFor(lookupGroupResource(gr)!)).toBe(strategy);
  });

  it("gives a custom kind named like a built-in none of the built-in's defaults, rules or immutable fields", () => {
    const type = lookupType('example.com', 'v1', 'pods')!;
    expect(strategyFor(type).patchTypes).toContain('application/merge-patch+json');
    const { store } = memoryStore();
    const env = { type, now: Date.UTC(2026, 0, 1), newUid: () => 'uid-1', randomSuffix: () => 'abcde' };
    // A core/v1 Pod without containers is invalid, and would get tolerations, a restartPolicy and a QoS class.
    const made = executeWrite(store, env, { verb: 'create', namespace: 'ns', body: JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Pod', metadata: { name: 'p' }, spec: { anything: 1 } }) });
    expect(made.code).toBe(201);
    expect((made.body as KubeObject).spec).toEqual({ anything: 1 });
    expect((made.body as KubeObject).status).toBeUndefined();
    // A core/v1 Pod's spec may not change; this one's may.
    const updated = executeWrite(store, env, { verb: 'update', namespace: 'ns', name: 'p', subresource: '', body: JSON.stringify({ ...(made.body as KubeObject), spec: { other: 2 } }) });
    expect((updated.body as KubeObject).spec).toEqual({ other: 2 });
  });
});
