import { describe, expect, it } from 'vitest';
import { aggregatedCore, aggregatedGroups, negotiateAggregated } from '../../../core/discovery/aggregated';
import { apiGroupList, apiResourceList } from '../../../core/discovery/legacy';

const KUBECTL_132 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

describe('aggregated discovery', () => {
  it('negotiates from the Accept header in preference order', () => {
    expect(negotiateAggregated(KUBECTL_132)).toBe('v2');
    expect(negotiateAggregated('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json')).toBe('v2beta1');
    expect(negotiateAggregated('application/json')).toBeUndefined();
    expect(negotiateAggregated(undefined)).toBeUndefined();
    expect(negotiateAggregated('application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList')).toBeUndefined();
    expect(negotiateAggregated('application/json;q=0.5,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList')).toBe('v2');
    expect(negotiateAggregated('application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json')).toBeUndefined();
  });

  it('core: one item, no name, v1 resources with scope, verbs, shortNames, categories and subresources', () => {
    const doc = aggregatedCore('v2');
    expect(doc).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {} });
    expect(doc.items).toHaveLength(1);
    expect(doc.items[0].metadata).toEqual({ creationTimestamp: null });
    const [v1] = doc.items[0].versions;
    expect(v1.version).toBe('v1');
    expect(v1.freshness).toBe('Current');
    const pods = v1.resources!.find((r) => r.resource === 'pods')!;
    expect(pods).toMatchObject({ responseKind: { group: '', version: '', kind: 'Pod' }, scope: 'Namespaced', singularResource: 'pod', shortNames: ['po'], categories: ['all'] });
    expect(pods.subresources?.find((s) => s.subresource === 'status')).toEqual({ subresource: 'status', responseKind: { group: '', version: '', kind: 'Pod' }, verbs: ['get', 'patch', 'update'] });
    expect(v1.resources!.find((r) => r.resource === 'namespaces')!.scope).toBe('Cluster');
    // Same resources as the legacy /api/v1 (subresources folded into their resource).
    const legacy = apiResourceList('', 'v1')!.resources.filter((r) => !r.name.includes('/')).map((r) => r.name);
    expect(v1.resources!.map((r) => r.resource)).toEqual(legacy);
  });

  it('groups: every named group of /apis in its order, preferred version first, scale as autoscaling/v1', () => {
    const doc = aggregatedGroups('v2');
    expect(doc.items.map((i) => i.metadata.name)).toEqual(apiGroupList().groups.map((g) => g.name));
    const apps = doc.items.find((i) => i.metadata.name === 'apps')!;
    expect(apps.versions.map((v) => v.version)).toEqual(apiGroupList().groups.find((g) => g.name === 'apps')!.versions.map((v) => v.version));
    const deploy = apps.versions[0].resources!.find((r) => r.resource === 'deployments')!;
    expect(deploy.shortNames).toEqual(['deploy']);
    expect(deploy.subresources?.find((s) => s.subresource === 'scale')).toEqual({ subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] });
  });
});
