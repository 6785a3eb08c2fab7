import { describe, expect, it } from 'vitest';
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  servedGroupVersions,
  versionInfo,
  type APIResource,
} from '../../../core/discovery/legacy';
import { RESOURCE_TYPES } from '../../../core/registry';

function resource(group: string, version: string, name: string): APIResource | undefined {
  return apiResourceList(group, version)?.resources.find((r) => r.name === name);
}

describe('versionInfo', () => {
  it('returns every field of version.Info with a 1.32 version', () => {
    const v = versionInfo();
    expect(Object.keys(v).sort()).toEqual(
      ['buildDate', 'compiler', 'gitCommit', 'gitTreeState', 'gitVersion', 'goVersion', 'major', 'minor', 'platform'],
    );
    expect(v).toMatchObject({ major: '1', minor: '32' });
    expect(v.gitVersion).toMatch(/^v1\.32\.0-/);
  });

  it('takes build stamps when given', () => {
    expect(versionInfo({ gitCommit: 'abc', buildDate: '2026-07-01T00:00:00Z' })).toMatchObject({
      gitCommit: 'abc',
      buildDate: '2026-07-01T00:00:00Z',
    });
  });
});

describe('apiVersions', () => {
  it('lists v1 and echoes the server address', () => {
    expect(apiVersions('example.com:443')).toEqual({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: 'example.com:443' }],
    });
  });
});

describe('apiGroupList', () => {
  const list = apiGroupList();

  it.each(['apps', 'batch', 'discovery.k8s.io', 'coordination.k8s.io'])('lists group %s with v1 preferred', (name) => {
    expect(list.groups.find((g) => g.name === name)).toEqual({
      name,
      versions: [{ groupVersion: `${name}/v1`, version: 'v1' }],
      preferredVersion: { groupVersion: `${name}/v1`, version: 'v1' },
    });
  });

  it('leaves the core group to /api', () => {
    expect(list).toMatchObject({ kind: 'APIGroupList', apiVersion: 'v1' });
    expect(list.groups.some((g) => g.name === '')).toBe(false);
  });
});

describe('apiGroup', () => {
  it.each([
    ['apps', { kind: 'APIGroup', apiVersion: 'v1', name: 'apps' }],
    ['nope.example.com', undefined],
  ])('answers /apis/%s', (name, expected) => {
    const g = apiGroup(name);
    if (expected) expect(g).toMatchObject(expected);
    else expect(g).toBeUndefined();
  });
});

describe('apiResourceList', () => {
  it.each<[string, string, string, APIResource]>([
    ['', 'v1', 'pods', {
      name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['po'], categories: ['all'],
    }],
    ['', 'v1', 'pods/status', {
      name: 'pods/status', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get', 'patch', 'update'],
    }],
    ['', 'v1', 'namespaces', {
      name: 'namespaces', singularName: 'namespace', namespaced: false, kind: 'Namespace',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['ns'],
    }],
    ['', 'v1', 'endpoints', {
      name: 'endpoints', singularName: 'endpoints', namespaced: true, kind: 'Endpoints',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['ep'],
    }],
    ['apps', 'v1', 'deployments/scale', {
      name: 'deployments/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1',
      kind: 'Scale', verbs: ['get', 'patch', 'update'],
    }],
    ['apps', 'v1', 'deployments', {
      name: 'deployments', singularName: 'deployment', namespaced: true, kind: 'Deployment',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['deploy'], categories: ['all'],
    }],
    ['coordination.k8s.io', 'v1', 'leases', {
      name: 'leases', singularName: 'lease', namespaced: true, kind: 'Lease',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    }],
  ])('describes %s/%s %s exactly', (group, version, name, expected) => {
    expect(resource(group, version, name)).toEqual(expected);
  });

  it.each([
    ['', 'v1', undefined],
    ['apps', 'v1', 'v1'],
  ])('sets apiVersion on %s/%s to %s', (group, version, apiVersion) => {
    const list = apiResourceList(group, version)!;
    expect(list.kind).toBe('APIResourceList');
    expect(list.apiVersion).toBe(apiVersion);
    expect(list.groupVersion).toBe(group ? `${group}/${version}` : version);
  });

  it.each([['', 'v2'], ['apps', 'v1beta1'], ['example.com', 'v1']])('returns undefined for unserved %s/%s', (g, v) => {
    expect(apiResourceList(g, v)).toBeUndefined();
  });

  it.each(RESOURCE_TYPES.map((t) => [`${t.group || 'core'}/${t.resource}`, t] as const))(
    'lists %s and each of its subresources once',
    (_, t) => {
      const names = apiResourceList(t.group, t.version)!.resources.map((r) => r.name);
      for (const name of [t.resource, ...t.subresources.map((s) => `${t.resource}/${s}`)]) {
        expect(names.filter((n) => n === name)).toHaveLength(1);
      }
    },
  );

  it.each(servedGroupVersions().map(({ group, version }) => [group || 'core', group, version]))(
    'sorts %s resources by name',
    (_, group, version) => {
      const names = apiResourceList(group, version)!.resources.map((r) => r.name);
      expect(names).toEqual([...names].sort());
    },
  );
});

describe('servedGroupVersions', () => {
  it('puts the core group first and lists each group/version once', () => {
    const gvs = servedGroupVersions();
    expect(gvs[0]).toEqual({ group: '', version: 'v1' });
    expect(new Set(gvs.map((g) => `${g.group}/${g.version}`)).size).toBe(gvs.length);
  });
});
