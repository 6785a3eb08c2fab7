// kubectl v1.32 against the local gateway: everyday create/get/apply/patch/delete work, and errors
// printed as a real cluster prints them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, startTestGateway, stopTestGateway, type Running } from './fixtures';

const MANIFESTS = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: { app: web, tier: front }
spec:
  replicas: 2
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - containerPort: 80
        env:
        - name: MODE
          value: prod
      - name: sidecar
        image: busybox:1.36
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  selector: { app: web }
  ports:
  - port: 80
    targetPort: 80
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
  labels: { app: web }
data:
  color: blue
`;

let r: Running;
beforeAll(async () => {
  r = await startTestGateway();
});
afterAll(() => stopTestGateway(r));

async function ok(args: string[], stdin?: string): Promise<string> {
  const res = await kubectl(r, args, stdin);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}

async function getJson(args: string[]): Promise<any> {
  return JSON.parse(await ok([...args, '-o', 'json']));
}

describe('kubectl against edgeplane', () => {
  it('creates a namespace', async () => {
    expect(await ok(['create', 'namespace', 'shop'])).toContain('namespace/shop created');
    expect(await ok(['get', 'namespaces'])).toMatch(/shop\s+Active/);
  });

  it('applies a Deployment, a Service and a ConfigMap, and re-applies them without change', async () => {
    const first = await ok(['apply', '-f', '-'], MANIFESTS);
    expect(first).toContain('deployment.apps/web created');
    expect(first).toContain('service/web created');
    expect(first).toContain('configmap/settings created');
    const rvBefore = (await getJson(['get', 'deployment', 'web', '-n', 'shop'])).metadata.resourceVersion;
    const second = await ok(['apply', '-f', '-'], MANIFESTS);
    expect(second).toContain('deployment.apps/web unchanged');
    expect(second).toContain('configmap/settings unchanged');
    expect((await getJson(['get', 'deployment', 'web', '-n', 'shop'])).metadata.resourceVersion).toBe(rvBefore);
  });

  it('applies a change as a strategic merge patch that keeps the other container', async () => {
    const changed = MANIFESTS.replace('image: nginx:1.27', 'image: nginx:1.28');
    expect(await ok(['apply', '-f', '-'], changed)).toContain('deployment.apps/web configured');
    const d = await getJson(['get', 'deployment', 'web', '-n', 'shop']);
    expect(d.spec.template.spec.containers.map((c: any) => `${c.name}=${c.image}`)).toEqual(['nginx=nginx:1.28', 'sidecar=busybox:1.36']);
    expect(d.metadata.generation).toBe(2);
  });

  it('gets with -o json, -o wide, -l and --field-selector', async () => {
    const list = await getJson(['get', 'configmaps', '-n', 'shop']);
    expect(list.kind).toBe('List');
    expect(list.items.map((i: any) => i.metadata.name)).toContain('settings');
    const wide = await ok(['get', 'deployments', '-n', 'shop', '-o', 'wide']);
    expect(wide).toMatch(/NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR/);
    expect(wide).toMatch(/web\s+0\/2\s+0\s+0\s+\S+\s+nginx,sidecar\s+nginx:1.28,busybox:1.36\s+app=web/);
    expect(await ok(['get', 'cm', '-n', 'shop', '-l', 'app=web', '-o', 'name'])).toBe('configmap/settings\n');
    expect(await ok(['get', 'cm', '-n', 'shop', '-l', 'app!=web', '-o', 'name'])).not.toContain('settings');
    expect(await ok(['get', 'svc', '-n', 'shop', '--field-selector', 'metadata.name=web', '-o', 'name'])).toBe('service/web\n');
    expect(await ok(['get', 'svc', '-n', 'shop', '--field-selector', 'metadata.name!=web', '-o', 'name'])).toBe('');
  });

  it('labels and annotates', async () => {
    expect(await ok(['label', 'cm', 'settings', '-n', 'shop', 'env=staging'])).toContain('configmap/settings labeled');
    expect(await ok(['annotate', 'cm', 'settings', '-n', 'shop', 'owner=team-a'])).toContain('configmap/settings annotated');
    const cm = await getJson(['get', 'cm', 'settings', '-n', 'shop']);
    expect(cm.metadata.labels).toMatchObject({ app: 'web', env: 'staging' });
    expect(cm.metadata.annotations.owner).toBe('team-a');
    expect(await ok(['label', 'cm', 'settings', '-n', 'shop', 'env-'])).toContain('labeled');
    expect((await getJson(['get', 'cm', 'settings', '-n', 'shop'])).metadata.labels.env).toBeUndefined();
  });

  it('scales a deployment through the scale subresource', async () => {
    expect(await ok(['scale', 'deployment', 'web', '-n', 'shop', '--replicas=5'])).toContain('deployment.apps/web scaled');
    expect((await getJson(['get', 'deployment', 'web', '-n', 'shop'])).spec.replicas).toBe(5);
  });

  it('patches with --type merge, json and strategic', async () => {
    await ok(['patch', 'cm', 'settings', '-n', 'shop', '--type', 'merge', '-p', '{"data":{"size":"xl"}}']);
    await ok(['patch', 'cm', 'settings', '-n', 'shop', '--type', 'json', '-p', '[{"op":"replace","path":"/data/color","value":"red"}]']);
    expect((await getJson(['get', 'cm', 'settings', '-n', 'shop'])).data).toEqual({ color: 'red', size: 'xl' });
    await ok(['patch', 'deployment', 'web', '-n', 'shop', '-p',
      '{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox:1.37"}]}}}}']);
    const d = await getJson(['get', 'deployment', 'web', '-n', 'shop']);
    expect(d.spec.template.spec.containers.map((c: any) => c.image)).toEqual(['nginx:1.28', 'busybox:1.37']);
  });

  it('replaces an object', async () => {
    const cm = await getJson(['get', 'cm', 'settings', '-n', 'shop']);
    cm.data = { replaced: 'yes' };
    expect(await ok(['replace', '-f', '-'], JSON.stringify(cm))).toContain('configmap/settings replaced');
    expect((await getJson(['get', 'cm', 'settings', '-n', 'shop'])).data).toEqual({ replaced: 'yes' });
  });

  it('prints server errors as a real cluster does', async () => {
    const missing = await kubectl(r, ['get', 'pod', 'x', '-n', 'shop']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr.trim()).toBe('Error from server (NotFound): pods "x" not found');
    // `create configmap` (protobuf, typed client) and `create -f` word the same Status differently.
    const dup = await kubectl(r, ['create', 'configmap', 'settings', '-n', 'shop']);
    expect(dup.stderr.trim()).toBe('error: failed to create configmap: configmaps "settings" already exists');
    const dupFile = await kubectl(r, ['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'shop' } }));
    expect(dupFile.stderr.trim()).toBe('Error from server (AlreadyExists): error when creating "STDIN": configmaps "settings" already exists');
    const noNs = await kubectl(r, ['create', 'configmap', 'c', '-n', 'nowhere']);
    expect(noNs.stderr.trim()).toBe('error: failed to create configmap: namespaces "nowhere" not found');
    const badName = await kubectl(r, ['create', 'configmap', 'Bad_Name', '-n', 'shop']);
    expect(badName.stderr.trim()).toMatch(/^error: failed to create configmap: ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/);
  });

  it('rejects a manifest with an unknown field, as strict validation does', async () => {
    const typo = MANIFESTS.split('---')[2].replace(/^data:/m, 'dataa:').replace('name: settings', 'name: typo');
    const res = await kubectl(r, ['apply', '-f', '-'], typo);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('strict decoding error: unknown field "dataa"');
    expect((await kubectl(r, ['get', 'cm', 'typo', '-n', 'shop'])).code).not.toBe(0);
  });

  it('deletes objects and namespaces', async () => {
    expect(await ok(['delete', 'cm', 'settings', '-n', 'shop'])).toContain('configmap "settings" deleted');
    expect((await kubectl(r, ['get', 'cm', 'settings', '-n', 'shop'])).code).not.toBe(0);
    expect(await ok(['delete', 'namespace', 'shop'])).toContain('namespace "shop" deleted');
    expect((await kubectl(r, ['get', 'deployment', 'web', '-n', 'shop'])).stderr).toContain('not found');
  });

  it('serves --raw /healthz and api-resources', async () => {
    expect(await ok(['get', '--raw', '/healthz'])).toBe('ok');
    const resources = await ok(['api-resources']);
    expect(resources).toMatch(/deployments\s+deploy\s+apps\/v1\s+true\s+Deployment/);
    expect(resources).toMatch(/namespaces\s+ns\s+v1\s+false\s+Namespace/);
    expect(resources).toMatch(/leases\s+coordination.k8s.io\/v1\s+true\s+Lease/);
  });
});
