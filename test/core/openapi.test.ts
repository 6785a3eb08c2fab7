import { describe, expect, it } from 'vitest';
import {
  OPENAPI_V2_PROTOBUF_CONTENT_TYPE,
  openApiV2Protobuf,
  openApiV3Document,
  openApiV3Index,
  type OpenApiV3Document,
} from '../../core/openapi';
import { servedGroupVersions } from '../../core/discovery';
import { RESOURCE_TYPES } from '../../core/registry';

type Op = Record<string, any>;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Every PATCH operation tagged with the GVK: kubectl takes whichever its map iteration meets first. */
function patchOpsFor(doc: OpenApiV3Document, gvk: { group: string; version: string; kind: string }): Op[] {
  return Object.values(doc.paths)
    .map((item) => item.patch as Op | undefined)
    .filter((op): op is Op => {
      const g = op?.['x-kubernetes-group-version-kind'];
      return !!g && g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind;
    });
}

describe('openApiV3Index', () => {
  const index = openApiV3Index();

  it.each(servedGroupVersions().map(({ group, version }) => [group ? `apis/${group}/${version}` : `api/${version}`]))(
    'points %s at its document with a content hash',
    (path) => {
      expect(index.paths[path].serverRelativeURL).toMatch(new RegExp(`^/openapi/v3/${path}\\?hash=[0-9A-F]{16}$`));
    },
  );

  it('is stable across calls', () => {
    expect(openApiV3Index()).toEqual(index);
  });

  it('gives each group/version a different hash', () => {
    const hashes = Object.values(index.paths).map((p) => p.serverRelativeURL.split('hash=')[1]);
    expect(new Set(hashes).size).toBe(hashes.length);
  });
});

describe('openApiV3Document', () => {
  it.each([['', 'v2'], ['apps', 'v1beta1'], ['example.com', 'v1']])('returns undefined for unserved %s/%s', (g, v) => {
    expect(openApiV3Document(g, v)).toBeUndefined();
  });

  // What cli-runtime queryParamVerifierV3.supportsQueryParamV3 requires for kubectl --validate=strict.
  it.each(RESOURCE_TYPES.filter((t) => t.verbs.includes('patch')).map((t) => [`${t.kind}.${t.group || 'core'}`, t] as const))(
    'declares fieldValidation in query on every PATCH tagged %s',
    (_, t) => {
      const ops = patchOpsFor(openApiV3Document(t.group, t.version)!, t);
      expect(ops.length).toBeGreaterThan(0);
      for (const op of ops) {
        expect(op.parameters).toContainEqual(expect.objectContaining({ name: 'fieldValidation', in: 'query' }));
      }
    },
  );

  it.each(RESOURCE_TYPES.map((t) => [`${t.kind}.${t.group || 'core'}`, t] as const))(
    'accepts all four patch types on PATCH %s',
    (_, t) => {
      for (const op of patchOpsFor(openApiV3Document(t.group, t.version)!, t)) {
        expect(Object.keys(op.requestBody.content).sort()).toEqual([
          'application/apply-patch+yaml',
          'application/json-patch+json',
          'application/merge-patch+json',
          'application/strategic-merge-patch+json',
        ]);
      }
    },
  );

  // kubectl patcher.go buildStrategicMergePatchFromOpenAPIV3 must find no schema, so it falls back to compiled-in
  // types; a nil components section would instead print "error calculating patch from openapi v3 spec".
  it.each(servedGroupVersions().map(({ group, version }) => [group || 'core', group, version]))(
    'serves %s component schemas with no group-version-kind',
    (_, group, version) => {
      const doc = openApiV3Document(group, version)!;
      expect(Object.keys(doc.components.schemas).length).toBeGreaterThan(0);
      for (const schema of Object.values(doc.components.schemas)) {
        expect(schema).not.toHaveProperty('x-kubernetes-group-version-kind');
      }
    },
  );

  it.each([
    ['/api/v1/namespaces/{namespace}/configmaps/{name}', '', ['get', 'put', 'patch', 'delete']],
    ['/api/v1/namespaces/{namespace}/configmaps', '', ['get', 'post', 'delete']],
    ['/api/v1/namespaces', '', ['get', 'post']],
    ['/api/v1/nodes/{name}/status', '', ['get', 'put', 'patch']],
    ['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale', 'apps', ['get', 'put', 'patch']],
    ['/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}', 'coordination.k8s.io', ['get', 'put', 'patch', 'delete']],
  ])('serves %s with exactly the operations its verbs allow', (path, group, methods) => {
    const item = openApiV3Document(group, 'v1')!.paths[path];
    expect(HTTP_METHODS.filter((m) => m in item)).toEqual(HTTP_METHODS.filter((m) => methods.includes(m)));
  });

  it.each([
    ['', '/api/v1/namespaces/{namespace}/pods/{name}', 'patchCoreV1NamespacedPod', { group: '', version: 'v1', kind: 'Pod' }],
    ['', '/api/v1/nodes/{name}', 'patchCoreV1Node', { group: '', version: 'v1', kind: 'Node' }],
    ['apps', '/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status', 'patchAppsV1NamespacedDeploymentStatus',
      { group: 'apps', version: 'v1', kind: 'Deployment' }],
    ['apps', '/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale', 'patchAppsV1NamespacedDeploymentScale',
      { group: 'autoscaling', version: 'v1', kind: 'Scale' }],
    ['discovery.k8s.io', '/apis/discovery.k8s.io/v1/namespaces/{namespace}/endpointslices/{name}',
      'patchDiscoveryV1NamespacedEndpointSlice', { group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice' }],
  ])('names and tags PATCH %s %s like kube-openapi', (group, path, operationId, gvk) => {
    const op = openApiV3Document(group, 'v1')!.paths[path].patch as Op;
    expect(op.operationId).toBe(operationId);
    expect(op['x-kubernetes-group-version-kind']).toEqual(gvk);
    expect(op['x-kubernetes-action']).toBe('patch');
  });

  it.each(servedGroupVersions().map(({ group, version }) => [group || 'core', group, version]))(
    'resolves every $ref in the %s document',
    (_, group, version) => {
      const doc = openApiV3Document(group, version)!;
      const refs = JSON.stringify(doc).match(/"#\/components\/schemas\/[^"]+"/g) ?? [];
      for (const ref of refs) expect(doc.components.schemas).toHaveProperty([ref.slice(22, -1)]);
    },
  );
});

describe('openApiV2Protobuf', () => {
  it('encodes a Document holding only swagger "2.0" (field 1, wire type 2)', () => {
    const bytes = openApiV2Protobuf();
    expect([...bytes.slice(0, 2)]).toEqual([0x0a, 3]);
    expect(new TextDecoder().decode(bytes.slice(2))).toBe('2.0');
  });

  it('names a content type Go mime.ParseMediaType accepts (no "@")', () => {
    expect(OPENAPI_V2_PROTOBUF_CONTENT_TYPE).toMatch(/^application\/[\w.+-]+$/);
  });
});
