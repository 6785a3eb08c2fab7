// kubectl v1.32 against the published OpenAPI documents: `explain` prints the field docs (v3, and v2 protobuf with
// --output plaintext-openapiv2), client-side apply computes correct strategic merge patches from the v3 components
// (merge keys for containers, ports, env), `kind: List` manifests are validated against /openapi/v2 as against a
// real cluster, and the endpoints negotiate and cache as kube-apiserver's do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, TOKEN, type Running } from './fixtures';

let r: Running;
beforeAll(async () => {
  r = await startTestGateway();
  await ok(['create', 'namespace', 'docs']);
});
afterAll(() => stopTestGateway(r));

async function ok(args: string[], stdin?: string): Promise<string> {
  const res = await kubectl(r, args, stdin);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}

/** Runs `kubectl apply` and fails on any warning (e.g. "error calculating patch from openapi v3 spec"). */
async function apply(manifest: string): Promise<string> {
  const res = await kubectl(r, ['apply', '-f', '-'], manifest);
  if (res.code !== 0) throw new Error(`kubectl apply failed (${res.code}): ${res.stderr}`);
  expect(res.stderr).toBe('');
  return res.stdout;
}

async function getJson(args: string[]): Promise<any> {
  return JSON.parse(await ok([...args, '-o', 'json']));
}

/** The container fields kubectl sent, without the server's defaults. */
function containers(obj: any): unknown[] {
  return obj.spec.containers.map((c: any) => ({
    name: c.name, image: c.image,
    ...(c.ports ? { ports: c.ports.map((p: any) => p.containerPort) } : {}),
    ...(c.env ? { env: c.env.map((e: any) => `${e.name}=${e.value}`) } : {}),
  }));
}

function deployment(nginx: { image: string; ports: number[]; env: [string, string][] }): string {
  return `
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: docs }
spec:
  replicas: 1
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers:
      - name: nginx
        image: ${nginx.image}
        ports: [${nginx.ports.map((p) => `{ containerPort: ${p} }`).join(', ')}]
        env: [${nginx.env.map(([n, v]) => `{ name: ${n}, value: "${v}" }`).join(', ')}]
      - name: sidecar
        image: busybox:1.36
`;
}

describe('kubectl explain', () => {
  it('explains pod.spec.containers.resources from /openapi/v3', async () => {
    const out = await ok(['explain', 'pod.spec.containers.resources']);
    expect(out).toMatch(/^KIND:\s+Pod\nVERSION:\s+v1\n\nFIELD: resources <ResourceRequirements>\n/);
    expect(out).toContain('Compute Resources required by this container. Cannot be updated.');
    expect(out).toContain('ResourceRequirements describes the compute resource requirements.');
    expect(out).toMatch(/\n {2}limits\t<map\[string\]Quantity>\n {4}Limits describes the maximum amount of compute resources allowed/);
    expect(out).toMatch(/\n {2}requests\t<map\[string\]Quantity>\n/);
    expect(out).toMatch(/\n {2}claims\t<\[\]ResourceClaim>\n/);
  });

  it('explains deployment.spec.strategy', async () => {
    const out = await ok(['explain', 'deployment.spec.strategy']);
    expect(out).toMatch(/^GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1\n\nFIELD: strategy <DeploymentStrategy>\n/);
    expect(out).toContain('The deployment strategy to use to replace existing pods with new ones.');
    expect(out).toMatch(/\n {2}rollingUpdate\t<RollingUpdateDeployment>\n/);
    expect(out).toMatch(/\n {2}type\t<string>\n {4}Type of deployment\. Can be "Recreate" or "RollingUpdate"/);
  });

  it('explains configmap', async () => {
    const out = await ok(['explain', 'configmap']);
    expect(out).toMatch(/^KIND:\s+ConfigMap\nVERSION:\s+v1\n\nDESCRIPTION:\n {4}ConfigMap holds configuration data for pods to consume\.\n/);
    for (const field of ['apiVersion\t<string>', 'binaryData\t<map[string]string>', 'data\t<map[string]string>', 'immutable\t<boolean>', 'kind\t<string>', 'metadata\t<ObjectMeta>']) {
      expect(out).toContain(`\n  ${field}\n`);
    }
  });

  it('explains from the /openapi/v2 protobuf document too', async () => {
    const out = await ok(['explain', 'pod.spec.containers', '--output=plaintext-openapiv2']);
    expect(out).toMatch(/^KIND:\s+Pod\nVERSION:\s+v1\n\nRESOURCE: containers <\[\]Object>\n/);
    expect(out).toContain('List of containers belonging to the pod.');
    expect(out).toMatch(/\n {3}image\t<string>\n/);
  });

  it('says when a field does not exist, as against a real cluster', async () => {
    const res = await kubectl(r, ['explain', 'pod.spec.nope']);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe('error: field "nope" does not exist\n');
  });
});

describe('kubectl apply with strategic merge patches computed from the v3 schemas', () => {
  it('creates a two-container deployment, then changes one image and adds and removes ports and env entries', async () => {
    expect(await apply(deployment({ image: 'nginx:1.27', ports: [80, 443], env: [['A', '1'], ['B', '2']] })))
      .toBe('deployment.apps/web created\n');
    const res = await kubectl(r, ['apply', '-f', '-', '-v=6'], deployment({ image: 'nginx:1.28', ports: [80, 8080], env: [['A', '1'], ['C', '3']] }));
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('deployment.apps/web configured\n');
    expect(res.stderr).not.toMatch(/warning/i);
    // The patch came from the apps/v1 v3 document: a v3 miss would have sent kubectl on to /openapi/v2.
    expect(res.stderr).toMatch(/GET https:\/\/[^ ]+\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{16}/);
    expect(res.stderr).not.toContain('/openapi/v2');
    expect(res.stderr).toMatch(/PATCH https:\/\/[^ ]+\/apis\/apps\/v1\/namespaces\/docs\/deployments\/web\?fieldManager=kubectl-client-side-apply&fieldValidation=Strict 200 OK/);
    const d = await getJson(['get', 'deployment', 'web', '-n', 'docs']);
    expect(containers(d.spec.template)).toEqual([
      { name: 'nginx', image: 'nginx:1.28', ports: [80, 8080], env: ['A=1', 'C=3'] },
      { name: 'sidecar', image: 'busybox:1.36' },
    ]);
  });

  it('keeps entries a re-apply reorders and drops the last env entry', async () => {
    await apply(deployment({ image: 'nginx:1.28', ports: [8080, 80, 9090], env: [['C', '3']] }));
    const d = await getJson(['get', 'deployment', 'web', '-n', 'docs']);
    expect(containers(d.spec.template)).toEqual([
      { name: 'nginx', image: 'nginx:1.28', ports: [8080, 80, 9090], env: ['C=3'] },
      { name: 'sidecar', image: 'busybox:1.36' },
    ]);
  });

  it('re-applies an unchanged manifest without changing the object', async () => {
    const before = (await getJson(['get', 'deployment', 'web', '-n', 'docs'])).metadata.resourceVersion;
    expect(await apply(deployment({ image: 'nginx:1.28', ports: [8080, 80, 9090], env: [['C', '3']] }))).toBe('deployment.apps/web unchanged\n');
    expect((await getJson(['get', 'deployment', 'web', '-n', 'docs'])).metadata.resourceVersion).toBe(before);
  });

  it('changes one container image of a multi-container pod and keeps the other', async () => {
    const pod = (image: string) => `
apiVersion: v1
kind: Pod
metadata: { name: duo, namespace: docs }
spec:
  containers:
  - { name: app, image: ${image}, ports: [{ containerPort: 8080 }] }
  - { name: log, image: busybox:1.36 }
`;
    expect(await apply(pod('nginx:1.27'))).toBe('pod/duo created\n');
    expect(await apply(pod('nginx:1.28'))).toBe('pod/duo configured\n');
    expect(containers(await getJson(['get', 'pod', 'duo', '-n', 'docs']))).toEqual([
      { name: 'app', image: 'nginx:1.28', ports: [8080] },
      { name: 'log', image: 'busybox:1.36' },
    ]);
  });

  it('patches with --type strategic like kubectl edit does: merge by name, delete by merge key', async () => {
    const patch = {
      spec: { template: { spec: { containers: [
        { name: 'nginx', ports: [{ containerPort: 9090, $patch: 'delete' }], env: [{ name: 'D', value: '4' }] },
        { name: 'sidecar', image: 'busybox:1.37' },
      ] } } },
    };
    expect(await ok(['patch', 'deployment', 'web', '-n', 'docs', '--type', 'strategic', '-p', JSON.stringify(patch)]))
      .toBe('deployment.apps/web patched\n');
    const d = await getJson(['get', 'deployment', 'web', '-n', 'docs']);
    // Without $setElementOrder, the patch's entries come first, then the ones only the server had (apimachinery
    // strategicpatch normalizeElementOrder).
    expect(containers(d.spec.template)).toEqual([
      { name: 'nginx', image: 'nginx:1.28', ports: [8080, 80], env: ['D=4', 'C=3'] },
      { name: 'sidecar', image: 'busybox:1.37' },
    ]);
  });
});

describe('kind: List manifests, validated against /openapi/v2', () => {
  const list = (suffix: string, podSpecExtra = '') => `
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: { name: listed-${suffix}, namespace: docs }
  data: { a: "1" }
- apiVersion: v1
  kind: Pod
  metadata: { name: listed-${suffix}, namespace: docs }
  spec:${podSpecExtra}
    containers: [{ name: c, image: busybox:1.36 }]
`;

  it('applies every item of a List', async () => {
    expect(await apply(list('ok'))).toBe('configmap/listed-ok created\npod/listed-ok created\n');
    expect(await apply(list('ok'))).toBe('configmap/listed-ok unchanged\npod/listed-ok unchanged\n');
  });

  it('rejects a List with an unknown field before creating any item, with kubectl\'s client-side message', async () => {
    const res = await kubectl(r, ['apply', '-f', '-'], list('bad', '\n    containerz: 1'));
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe(
      'error: error validating "STDIN": error validating data: ValidationError(Pod.spec): unknown field "containerz" in ' +
        'io.k8s.api.core.v1.PodSpec; if you choose to ignore these errors, turn validation off with --validate=false\n',
    );
    const missing = await kubectl(r, ['get', 'configmap', 'listed-bad', '-n', 'docs']);
    expect(missing.stderr).toBe('Error from server (NotFound): configmaps "listed-bad" not found\n');
  });
});

describe('/openapi endpoints', () => {
  it('serves /openapi/v2 as JSON by default and as gnostic protobuf when asked', async () => {
    const json = await http(r, 'GET', '/openapi/v2');
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toBe('application/json');
    expect(json.json.swagger).toBe('2.0');
    expect(json.json.definitions['io.k8s.api.core.v1.Pod']['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'Pod', version: 'v1' }]);
    const pb = await http(r, 'GET', '/openapi/v2', undefined, { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
    expect(pb.status).toBe(200);
    expect(pb.headers.get('content-type')).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    const notAcceptable = await http(r, 'GET', '/openapi/v2', undefined, { accept: 'text/html' });
    expect(notAcceptable.status).toBe(406);
  });

  it('caches v3 documents by hash: immutable when current, redirected when stale, 304 on a matching ETag', async () => {
    const url = (await http(r, 'GET', '/openapi/v3')).json.paths['api/v1'].serverRelativeURL as string;
    const hash = url.split('hash=')[1]!;
    const current = await http(r, 'GET', url);
    expect(current.status).toBe(200);
    expect(current.headers.get('cache-control')).toBe('public, immutable');
    expect(current.headers.get('etag')).toBe(`"${hash}"`);
    expect(current.json.components.schemas['io.k8s.api.core.v1.Pod']['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'Pod', version: 'v1' }]);
    const stale = await fetch(`${r.gateway.url}/openapi/v3/api/v1?hash=0000000000000000`, { headers: { authorization: `Bearer ${TOKEN}` }, redirect: 'manual' });
    expect(stale.status).toBe(301);
    expect(stale.headers.get('location')).toBe(url);
    const unchanged = await http(r, 'GET', '/openapi/v3/api/v1', undefined, { 'if-none-match': `"${hash}"` });
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe('');
  });
});
