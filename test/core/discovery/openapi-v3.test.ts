import { describe, expect, it } from 'vitest';
import { contentHash, openApiV3Document, openApiV3Index, type OpenApiV3Document } from '../../../core/discovery/openapi-v3';
import { servedGroupVersions } from '../../../core/discovery/legacy';
import { RESOURCE_TYPES } from '../../../core/registry';

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

  // metrics.k8s.io is metrics-server's API (served built in): its schema is not in kube's document.
  it.each(RESOURCE_TYPES.filter((t) => t.group !== 'metrics.k8s.io').map((t) => [`${t.kind}.${t.group || 'core'}`, t] as const))(
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

describe('openApiV3Document component schemas', () => {
  const core = openApiV3Document('', 'v1')!;
  const apps = openApiV3Document('apps', 'v1')!;
  const schemas = core.components.schemas as Record<string, any>;

  // kubectl patcher.go buildStrategicMergePatchFromOpenAPIV3 and explain look the kind up by this extension.
  // metrics.k8s.io is metrics-server's API (served built in): its schema is not in kube's document.
  it.each(RESOURCE_TYPES.filter((t) => t.group !== 'metrics.k8s.io').map((t) => [`${t.kind}.${t.group || 'core'}`, t] as const))(
    'publishes %s with its group-version-kind',
    (_, t) => {
      const doc = openApiV3Document(t.group, t.version)!;
      const matching = Object.entries(doc.components.schemas).filter(([, s]) =>
        (s['x-kubernetes-group-version-kind'] as any[] | undefined)?.some((g) => g.group === t.group && g.version === t.version && g.kind === t.kind));
      expect(matching.map(([name]) => name)).toHaveLength(1);
      expect(matching[0]![1].type).toBe('object');
      expect(Object.keys(matching[0]![1].properties as object)).toEqual(expect.arrayContaining(['apiVersion', 'kind', 'metadata']));
    },
  );

  it('carries descriptions on kinds and fields', () => {
    expect(schemas['io.k8s.api.core.v1.ConfigMap'].description).toBe('ConfigMap holds configuration data for pods to consume.');
    expect(schemas['io.k8s.api.core.v1.ResourceRequirements'].properties.limits.description).toMatch(/^Limits describes the maximum amount of compute resources allowed/);
    expect(schemas['io.k8s.api.core.v1.PodSpec'].properties.containers.description).toMatch(/^List of containers belonging to the pod/);
  });

  it('wraps a $ref with siblings in allOf, as kube-openapi WrapRefs does, and leaves a bare $ref alone', () => {
    expect(schemas['io.k8s.api.core.v1.Pod'].properties.metadata).toEqual({
      allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }],
      description: expect.stringMatching(/^Standard object's metadata/),
    });
    expect(schemas['io.k8s.api.core.v1.PodSpec'].properties.containers.items).toEqual({ $ref: '#/components/schemas/io.k8s.api.core.v1.Container' });
    expect(schemas['io.k8s.api.core.v1.ResourceRequirements'].properties.limits.additionalProperties)
      .toEqual({ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity' });
  });

  it.each(servedGroupVersions().map(({ group, version }) => [group || 'core', group, version]))(
    'has no $ref with siblings anywhere in the %s document',
    (_, group, version) => {
      const bad: string[] = [];
      const walk = (node: unknown, path: string): void => {
        if (!node || typeof node !== 'object') return;
        // A `properties` map may name a field "$ref" (JSONSchemaProps, served with the CRD type).
        if (!Array.isArray(node) && '$ref' in node && Object.keys(node).length > 1 && !path.endsWith('/properties')) bad.push(path);
        for (const [k, v] of Object.entries(node)) walk(v, `${path}/${k}`);
      };
      walk(openApiV3Document(group, version), '');
      expect(bad).toEqual([]);
    },
  );

  // What kubectl computes strategic merge patches from: the lists' merge keys must be the real ones.
  it.each([
    ['io.k8s.api.core.v1.PodSpec', 'containers', 'name', 'merge'],
    ['io.k8s.api.core.v1.PodSpec', 'volumes', 'name', 'merge,retainKeys'],
    ['io.k8s.api.core.v1.Container', 'ports', 'containerPort', 'merge'],
    ['io.k8s.api.core.v1.Container', 'env', 'name', 'merge'],
  ])('keeps %s.%s patch metadata (merge key %s, strategy %s)', (def, field, key, strategy) => {
    const prop = schemas[def].properties[field];
    expect(prop['x-kubernetes-patch-merge-key']).toBe(key);
    expect(prop['x-kubernetes-patch-strategy']).toBe(strategy);
  });

  it('keeps the deployment strategy documented and patchable', () => {
    const deployment = apps.components.schemas['io.k8s.api.apps.v1.DeploymentSpec'] as any;
    expect(deployment.properties.strategy).toEqual({
      allOf: [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy' }],
      description: 'The deployment strategy to use to replace existing pods with new ones.',
      'x-kubernetes-patch-strategy': 'retainKeys',
    });
  });

  it('includes exactly the definitions its paths reference, transitively', () => {
    const lease = openApiV3Document('coordination.k8s.io', 'v1')!;
    const names = Object.keys(lease.components.schemas);
    expect(names).toContain('io.k8s.api.coordination.v1.LeaseSpec');
    expect(names).toContain('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    expect(names).toContain('io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions');
    expect(names).not.toContain('io.k8s.api.core.v1.PodSpec');
    expect(Object.keys(core.components.schemas)).not.toContain('io.k8s.api.apps.v1.Deployment');
    // Nothing unreferenced: every schema but the paths' own is reachable through some $ref.
    const referenced = new Set(JSON.stringify(lease).match(/#\/components\/schemas\/[^"]+/g)!.map((r) => r.slice(21)));
    expect(names.filter((n) => !referenced.has(n))).toEqual([]);
  });

  // kube-openapi OpenAPIV3OneOfTypes: what makes `kubectl explain` print map[string]Quantity and <IntOrString>.
  it('publishes Quantity and IntOrString as oneOf types, as kube v3 does', () => {
    expect(schemas['io.k8s.apimachinery.pkg.api.resource.Quantity']).toEqual({
      description: expect.stringMatching(/^Quantity is a fixed-point representation of a number/),
      oneOf: [{ type: 'string' }, { type: 'number' }],
    });
    expect(schemas['io.k8s.apimachinery.pkg.util.intstr.IntOrString']).toEqual({
      description: expect.stringMatching(/^IntOrString is a type that can hold an int32 or a string/),
      format: 'int-or-string',
      oneOf: [{ type: 'integer' }, { type: 'string' }],
    });
  });

  it('returns the same object on every call (built once per isolate)', () => {
    expect(openApiV3Document('', 'v1')).toBe(core);
  });
});

describe('contentHash', () => {
  // The reference: FNV-1a 64 in BigInt arithmetic.
  function reference(text: string): string {
    let h = 0xcbf29ce484222325n;
    for (let i = 0; i < text.length; i++) h = BigInt.asUintN(64, (h ^ BigInt(text.charCodeAt(i))) * 0x100000001b3n);
    return h.toString(16).toUpperCase().padStart(16, '0');
  }

  it.each(['', 'a', 'hello world', '\u00ff\u4e2d\uffff', 'x'.repeat(1000), JSON.stringify(openApiV3Document('coordination.k8s.io', 'v1'))])(
    'matches 64-bit FNV-1a for %#',
    (text) => {
      expect(contentHash(text)).toBe(reference(text));
    },
  );
});
