// The registry serves what kube-apiserver 1.32 serves: every group, version, resource, scope, verb, short name,
// category and subresource of its discovery (test/data/kube-1.32-discovery.json, derived from the OpenAPI document
// by scripts/kube-discovery.ts), in both the aggregated and the legacy documents.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { aggregatedCore, aggregatedGroups } from '../../../core/discovery/aggregated';
import { apiGroupList, apiResourceList } from '../../../core/discovery/legacy';
import { KUBE_DISCOVERY_FILE, kubeDiscoveryText, type KubeDiscovery, type ResourceEntry } from '../../../scripts/kube-discovery';

const kube = JSON.parse(readFileSync(KUBE_DISCOVERY_FILE, 'utf8')) as KubeDiscovery;

/** The legacy APIResourceList entries kube derives from one aggregated resource entry. */
function legacyEntries(r: ResourceEntry, namespaced: boolean, group: string, version: string): Record<string, unknown>[] {
  const main: Record<string, unknown> = {
    name: r.resource, singularName: r.singularResource, namespaced, kind: r.responseKind.kind, verbs: r.verbs,
  };
  if (r.shortNames) main.shortNames = r.shortNames;
  if (r.categories) main.categories = r.categories;
  const subs = (r.subresources ?? []).map((s) => {
    const e: Record<string, unknown> = { name: `${r.resource}/${s.subresource}`, singularName: '', namespaced };
    if (s.responseKind.group !== '' || s.responseKind.version !== '') {
      if (s.responseKind.group !== group || s.responseKind.version !== version) Object.assign(e, { group: s.responseKind.group, version: s.responseKind.version });
    }
    return { ...e, kind: s.responseKind.kind, verbs: s.verbs };
  });
  return [main, ...subs];
}

describe('kube 1.32 discovery', () => {
  it('the committed data is what scripts/kube-discovery.ts derives from the OpenAPI document', () => {
    expect(readFileSync(KUBE_DISCOVERY_FILE, 'utf8')).toBe(kubeDiscoveryText());
  });

  it('GET /api (aggregated) equals kube 1.32 resource by resource', () => {
    expect(aggregatedCore('v2').items).toEqual([kube.core]);
  });

  // Plus metrics.k8s.io last, as a cluster with metrics-server lists it (its APIService's group priority is 100).
  const METRICS = 'metrics.k8s.io';
  it('GET /apis (aggregated) equals kube 1.32: groups in order, preferred versions first, every resource', () => {
    const items = aggregatedGroups('v2').items;
    expect(items.filter((g) => g.metadata.name !== METRICS)).toEqual(kube.groups);
    const metrics = items.at(-1)!;
    expect(metrics.metadata.name).toBe(METRICS);
    expect(metrics.versions.map((v) => [v.version, v.resources!.map((r) => [r.resource, r.responseKind.kind, r.scope, r.verbs])])).toEqual([
      ['v1beta1', [['nodes', 'NodeMetrics', 'Cluster', ['get', 'list']], ['pods', 'PodMetrics', 'Namespaced', ['get', 'list']]]],
    ]);
  });

  it('the legacy documents list the same groups, versions and resources', () => {
    expect(apiGroupList().groups.map((g) => [g.name, g.versions.map((v) => v.version)])).toEqual([
      ...kube.groups.map((g) => [g.metadata.name, g.versions.map((v) => v.version)]), [METRICS, ['v1beta1']],
    ]);
    for (const g of [kube.core, ...kube.groups]) {
      const group = g.metadata.name ?? '';
      for (const v of g.versions) {
        const expected = v.resources
          .flatMap((r) => legacyEntries(r, r.scope === 'Namespaced', group, v.version))
          .sort((a, b) => ((a.name as string) < (b.name as string) ? -1 : 1));
        expect(apiResourceList(group, v.version)?.resources, `${group}/${v.version}`).toEqual(expected);
      }
    }
  });

  it('serves the 58 resources of `kubectl api-resources` against kube 1.32', () => {
    const count = [kube.core, ...kube.groups].reduce((n, g) => n + g.versions[0]!.resources.length, 0);
    expect(count).toBe(58);
  });
});
