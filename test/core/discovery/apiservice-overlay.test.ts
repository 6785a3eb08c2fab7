// Discovery under service-backed APIServices (core/apiservices.ts discoveryOverlay with core/discovery): a built-in
// group version an unavailable APIService took over (metrics-server's v1beta1.metrics.k8s.io) is a Stale
// aggregated entry without resources, as kube-aggregator publishes a version whose discovery fetch failed; a group
// only a service-backed APIService names is listed in /apis and as Stale; available and local ones change nothing.
import { describe, expect, it } from 'vitest';
import { discoveryOverlay } from '../../../core/apiservices';
import { aggregatedGroups } from '../../../core/discovery/aggregated';
import { apiGroup, apiGroupList } from '../../../core/discovery/legacy';

const builtIn = (g: string, v: string) => (g === 'metrics.k8s.io' && v === 'v1beta1') || (g === 'apps' && v === 'v1');
const apiService = (group: string, version: string, available: boolean | undefined, priority = 100) => ({
  metadata: { name: `${version}.${group}` },
  spec: { group, version, groupPriorityMinimum: priority, versionPriority: 100, ...(available === undefined ? {} : { service: { namespace: 'x', name: 'y' } }) },
  status: { conditions: [{ type: 'Available', status: available === false ? 'False' : 'True' }] },
});

describe('discovery with service-backed APIServices', () => {
  it('marks a built-in version behind an unavailable APIService Stale, without resources', () => {
    const overlay = discoveryOverlay([apiService('metrics.k8s.io', 'v1beta1', false), apiService('apps', 'v1', undefined)], builtIn);
    expect([...overlay.stale]).toEqual(['metrics.k8s.io/v1beta1']);
    const metrics = aggregatedGroups('v2', overlay).items.find((i) => i.metadata.name === 'metrics.k8s.io')!;
    expect(metrics.versions).toEqual([{ version: 'v1beta1', freshness: 'Stale' }]);
    expect(JSON.stringify(metrics.versions[0])).toBe('{"version":"v1beta1","freshness":"Stale"}');
    // Still listed in /apis, as the aggregator lists every APIService's group.
    expect(apiGroupList(overlay).groups.some((g) => g.name === 'metrics.k8s.io')).toBe(true);
    // Available again: served as before.
    const ok = discoveryOverlay([apiService('metrics.k8s.io', 'v1beta1', true)], builtIn);
    expect(aggregatedGroups('v2', ok).items.find((i) => i.metadata.name === 'metrics.k8s.io')!.versions[0]).toMatchObject({ freshness: 'Current', resources: [{ resource: 'nodes' }, { resource: 'pods' }] });
  });

  it('lists groups only a service-backed APIService names, in priority order, Stale', () => {
    const overlay = discoveryOverlay([
      apiService('external.metrics.k8s.io', 'v1beta1', false), apiService('custom.metrics.k8s.io', 'v1beta2', false),
      apiService('custom.metrics.k8s.io', 'v1beta1', false), apiService('zz.example.com', 'v1', false, 2000),
    ], builtIn);
    expect(overlay.remote.map((r) => `${r.group}/${r.version}`)).toEqual(['zz.example.com/v1', 'custom.metrics.k8s.io/v1beta2', 'custom.metrics.k8s.io/v1beta1', 'external.metrics.k8s.io/v1beta1']);
    const list = apiGroupList(overlay).groups.map((g) => g.name);
    expect(list.slice(-3)).toEqual(['zz.example.com', 'custom.metrics.k8s.io', 'external.metrics.k8s.io']);
    expect(apiGroup('custom.metrics.k8s.io', overlay)).toMatchObject({ kind: 'APIGroup', name: 'custom.metrics.k8s.io', preferredVersion: { groupVersion: 'custom.metrics.k8s.io/v1beta2' } });
    expect(apiGroup('custom.metrics.k8s.io')).toBeUndefined();
    const custom = aggregatedGroups('v2', overlay).items.find((i) => i.metadata.name === 'custom.metrics.k8s.io')!;
    // Same priority: kube's version order, v1beta2 first.
    expect(custom.versions).toEqual([{ version: 'v1beta2', freshness: 'Stale' }, { version: 'v1beta1', freshness: 'Stale' }]);
  });
});
