// CustomResourceDefinitions end to end: CRD validation and status, the new type in discovery and
// routing, schema validation, pruning and defaulting of custom objects, status and scale subresources,
// printer columns, categories, RBAC, and the cascade when the CRD is deleted — over HTTP and kubectl.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running } from './fixtures';
import { httpWatch, wsWatch } from './watch-streams';
import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** A long-running kubectl (get -w) whose output lines can be awaited. */
function follow(args: string[]) {
  const child = spawn('/usr/bin/kubectl', ['--kubeconfig', r.kubeconfig, ...args], {
    env: { ...process.env, KUBECACHEDIR: join(r.dir, 'kube-cache'), HOME: r.dir },
  });
  const lines: string[] = [];
  let buffer = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    buffer += d.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    lines.push(...parts.filter((l) => l.trim()));
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return {
    lines,
    until: (pred: (l: string[]) => boolean, what: string) => waitFor(`${what} (${stderr}${lines.join('|')})`, async () => (pred(lines) ? true : undefined), 20_000),
    kill: () => child.kill(),
  };
}

let r: Running;
beforeAll(async () => {
  r = await startTestGateway({ vars: { STATIC_TOKENS: 'dana-token,dana,uid-d' } });
  await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: 'shop' } });
}, 120_000);
afterAll(() => stopTestGateway(r));

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const CRD422 = (n: string) => `CustomResourceDefinition.apiextensions.k8s.io "${n}" is invalid: `;

function crontabs(overrides: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'], categories: ['all', 'cron'] },
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  cronSpec: { type: 'string', pattern: '^(\\S+ ){4}\\S+$' },
                  image: { type: 'string' },
                  replicas: { type: 'integer', maximum: 10, default: 1 },
                  mode: { type: 'string', enum: ['a', 'b'] },
                },
              },
              status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
            },
          },
        },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
        additionalPrinterColumns: [
          { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
      }],
    },
    ...overrides,
  };
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

describe('CRD validation', () => {
  it('refuses a name that is not plural.group', async () => {
    const res = await http(r, 'POST', CRD_PATH, crontabs({ metadata: { name: 'foo.stable.example.com' } }));
    expect(res.status).toBe(422);
    expect(res.json.message).toBe(`${CRD422('foo.stable.example.com')}metadata.name: Invalid value: "foo.stable.example.com": must be spec.names.plural+"."+spec.group`);
  });

  it('refuses a group without a dot, a missing schema, a type-less property, metadata constraints, two storage versions, Webhook', async () => {
    const bad = crontabs();
    bad.spec.group = 'example';
    bad.metadata.name = 'crontabs.example';
    let res = await http(r, 'POST', CRD_PATH, bad);
    expect(res.status).toBe(422);
    expect(res.json.message).toContain('spec.group: Invalid value: "example": should be a domain with at least one dot');

    const noSchema = crontabs();
    delete (noSchema.spec.versions[0] as Record<string, unknown>).schema;
    res = await http(r, 'POST', CRD_PATH, noSchema);
    expect(res.json.message).toContain('spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required');

    const untyped = crontabs();
    delete (untyped.spec.versions[0].schema.openAPIV3Schema.properties.spec as Record<string, unknown>).type;
    res = await http(r, 'POST', CRD_PATH, untyped);
    expect(res.json.message).toBe(`${CRD422('crontabs.stable.example.com')}spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields`);

    const meta = crontabs();
    (meta.spec.versions[0].schema.openAPIV3Schema.properties as Record<string, unknown>).metadata = { type: 'object', properties: { labels: { type: 'object' } } };
    res = await http(r, 'POST', CRD_PATH, meta);
    expect(res.json.message).toContain('spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified');

    const two = crontabs();
    two.spec.versions = [two.spec.versions[0], { ...two.spec.versions[0], name: 'v2' }];
    res = await http(r, 'POST', CRD_PATH, two);
    expect(res.json.message).toContain('must have exactly one version marked as storage version');

    const webhook = crontabs();
    (webhook.spec as Record<string, unknown>).conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x' }, conversionReviewVersions: ['v1'] } };
    res = await http(r, 'POST', CRD_PATH, webhook);
    expect(res.status).toBe(422);
    expect(res.json.message).toContain('spec.conversion.strategy: Forbidden: Webhook conversion is not supported by this server');
    const unknown = crontabs();
    (unknown.spec as Record<string, unknown>).bogus = 1;
    res = await http(r, 'POST', `${CRD_PATH}?fieldValidation=Strict`, unknown);
    expect(res.status).toBe(400);
    expect(res.json.message).toBe('CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: strict decoding error: unknown field "spec.bogus"');
    // Nothing was stored by any of these.
    expect((await http(r, 'GET', `${CRD_PATH}/crontabs.stable.example.com`)).status).toBe(404);
  });
});

describe('a CRD and its objects', () => {
  it('is accepted, established and served; kubectl waits for it', async () => {
    const res = await kubectl(r, ['apply', '-f', '-'], JSON.stringify(crontabs()));
    expect(res.stderr).toBe('');
    expect(res.stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created');
    const wait = await kubectl(r, ['wait', '--for', 'condition=established', '--timeout=5s', 'crd/crontabs.stable.example.com']);
    expect(wait.stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com condition met');
    const got = (await http(r, 'GET', `${CRD_PATH}/crontabs.stable.example.com`)).json;
    expect(got.status.acceptedNames).toEqual({ plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'], categories: ['all', 'cron'] });
    expect(got.status.storedVersions).toEqual(['v1']);
    expect(got.status.conditions.map((c: { type: string; status: string; reason: string; message: string }) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['NamesAccepted', 'True', 'NoConflicts', 'no conflicts found'],
      ['Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted'],
    ]);
    const disc = (await http(r, 'GET', '/apis/stable.example.com/v1')).json;
    expect(disc.resources).toEqual([
      { name: 'crontabs', singularName: 'crontab', namespaced: true, kind: 'CronTab', verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'], shortNames: ['ct'], categories: ['all', 'cron'] },
      { name: 'crontabs/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] },
      { name: 'crontabs/status', singularName: '', namespaced: true, kind: 'CronTab', verbs: ['get', 'patch', 'update'] },
    ]);
    const resources = await kubectl(r, ['api-resources', '--api-group=stable.example.com']);
    expect(resources.stdout).toMatch(/crontabs\s+ct\s+stable\.example\.com\/v1\s+true\s+CronTab/);
  });

  it('a conflicting kind is not accepted and not served', async () => {
    const other = crontabs({ metadata: { name: 'others.stable.example.com' } });
    other.spec.names = { plural: 'others', singular: 'other', kind: 'CronTab', shortNames: [], categories: [] };
    const res = await http(r, 'POST', CRD_PATH, other);
    expect(res.status).toBe(201);
    const got = (await http(r, 'GET', `${CRD_PATH}/others.stable.example.com`)).json;
    expect(got.status.conditions.slice(0, 2).map((c: { type: string; status: string; reason: string; message: string }) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['NamesAccepted', 'False', 'KindConflict', '"CronTab" is already in use'],
      ['Established', 'False', 'NotAccepted', 'not all names are accepted'],
    ]);
    expect((await http(r, 'GET', '/apis/stable.example.com/v1/namespaces/shop/others')).status).toBe(404);
    expect((await http(r, 'DELETE', `${CRD_PATH}/others.stable.example.com`)).status).toBe(200);
  });

  it('prunes unknown fields with a warning, defaults, and validates with kube messages', async () => {
    const base = '/apis/stable.example.com/v1/namespaces/shop/crontabs';
    let res = await http(r, 'POST', base, { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'c1' }, spec: { cronSpec: '* * * * */5', image: 'img', someRandomField: 42 } });
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toBe('299 - "unknown field \\"spec.someRandomField\\""');
    expect(res.json.spec).toEqual({ cronSpec: '* * * * */5', image: 'img', replicas: 1 });
    expect(res.json.metadata.generation).toBe(1);

    res = await http(r, 'POST', `${base}?fieldValidation=Strict`, { metadata: { name: 'c2' }, spec: { someRandomField: 42 } });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe('strict decoding error: unknown field "spec.someRandomField"');

    res = await http(r, 'POST', base, { metadata: { name: 'c2' }, spec: { replicas: 'x' } });
    expect(res.status).toBe(422);
    expect(res.json.message).toBe('CronTab.stable.example.com "c2" is invalid: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"');
    res = await http(r, 'POST', base, { metadata: { name: 'c2' }, spec: { cronSpec: 'x', mode: 'c', replicas: 15 } });
    expect(res.json.message).toBe('CronTab.stable.example.com "c2" is invalid: [spec.cronSpec: Invalid value: "x": spec.cronSpec in body should match \'^(\\S+ ){4}\\S+$\', spec.mode: Unsupported value: "c": supported values: "a", "b", spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10]');
    res = await http(r, 'POST', base, { metadata: { name: 'c2' }, spec: { image: null } });
    expect(res.status).toBe(201);
    expect(res.json.spec).toEqual({ replicas: 1 });
    expect((await http(r, 'GET', `${base}/c9`)).status).toBe(404);
  });

  it('status and spec are written only through their own endpoints; scale works', async () => {
    const base = '/apis/stable.example.com/v1/namespaces/shop/crontabs';
    const cur = (await http(r, 'GET', `${base}/c1`)).json;
    let res = await http(r, 'PUT', `${base}/c1`, { ...cur, status: { replicas: 3 } });
    expect(res.status).toBe(200);
    expect(res.json.status).toBeUndefined();
    expect(res.json.metadata.generation).toBe(1);
    res = await http(r, 'PUT', `${base}/c1/status`, { ...res.json, spec: { ...cur.spec, image: 'changed' }, status: { replicas: 2, selector: 'app=x' } });
    expect(res.json.status).toEqual({ replicas: 2, selector: 'app=x' });
    expect(res.json.spec.image).toBe('img');
    const scale = (await http(r, 'GET', `${base}/c1/scale`)).json;
    expect(scale).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 1 }, status: { replicas: 2, selector: 'app=x' } });
    const k = await kubectl(r, ['scale', 'crontab', 'c1', '-n', 'shop', '--replicas=4']);
    expect(k.stdout.trim()).toBe('crontab.stable.example.com/c1 scaled');
    const after = (await http(r, 'GET', `${base}/c1`)).json;
    expect(after.spec.replicas).toBe(4);
    expect(after.metadata.generation).toBe(2);
    res = await http(r, 'PATCH', `${base}/c1`, { spec: { image: 'y' } }, { 'content-type': 'application/strategic-merge-patch+json' });
    expect(res.status).toBe(415);
    expect(res.json.message).toBe('the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
  });

  it('kubectl get shows the printer columns, by short name and category; field selectors', async () => {
    const got = await kubectl(r, ['get', 'ct', '-n', 'shop']);
    expect(got.stdout.split('\n')[0]).toMatch(/^NAME\s+SPEC\s+REPLICAS\s+AGE$/);
    expect(got.stdout).toMatch(/c1\s+\* \* \* \* \*\/5\s+4\s+\d+s/);
    const cat = await kubectl(r, ['get', 'cron', '-n', 'shop', '-o', 'name']);
    expect(cat.stdout.trim().split('\n').sort()).toEqual(['crontab.stable.example.com/c1', 'crontab.stable.example.com/c2']);
    const byName = await http(r, 'GET', '/apis/stable.example.com/v1/namespaces/shop/crontabs?fieldSelector=metadata.name=c2');
    expect(byName.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['c2']);
    const bad = await http(r, 'GET', '/apis/stable.example.com/v1/namespaces/shop/crontabs?fieldSelector=spec.image=x');
    expect(bad.status).toBe(400);
    expect(bad.json.message).toBe('field label not supported: spec.image');
  });

  it('kubectl explain, describe, patch and get -w work on the custom type', async () => {
    const explain = await kubectl(r, ['explain', 'crontabs.spec']);
    expect(explain.stderr).toBe('');
    expect(explain.stdout).toMatch(/GROUP:\s+stable\.example\.com/);
    expect(explain.stdout).toMatch(/cronSpec\s+<string>/);
    expect(explain.stdout).toMatch(/replicas\s+<integer>/);
    const strict = await kubectl(r, ['apply', '-f', '-'], JSON.stringify({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'c3', namespace: 'shop' }, spec: { image: 'x', bogus: 1 } }));
    expect(strict.stderr).toContain('strict decoding error: unknown field "spec.bogus"');
    const manifest = (image: string) => JSON.stringify({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'c4', namespace: 'shop' }, spec: { image } });
    expect((await kubectl(r, ['apply', '-f', '-'], manifest('one'))).stdout.trim()).toBe('crontab.stable.example.com/c4 created');
    const again = await kubectl(r, ['apply', '-f', '-'], manifest('two'));
    expect(again.stderr).toBe('');
    expect(again.stdout.trim()).toBe('crontab.stable.example.com/c4 configured');
    expect((await http(r, 'GET', '/apis/stable.example.com/v1/namespaces/shop/crontabs/c4')).json.spec).toEqual({ image: 'two', replicas: 1 });
    expect((await kubectl(r, ['delete', 'crontab', 'c4', '-n', 'shop'])).stdout.trim()).toBe('crontab.stable.example.com "c4" deleted');
    const describe = await kubectl(r, ['describe', 'crontab', 'c1', '-n', 'shop']);
    expect(describe.stdout).toMatch(/^Name:\s+c1$/m);
    expect(describe.stdout).toMatch(/^Kind:\s+CronTab$/m);
    const w = follow(['get', 'crontabs', '-n', 'shop', '-w']);
    try {
      await w.until((l) => l.some((x) => /^c1\s/.test(x)), 'the initial rows');
      const p = await kubectl(r, ['patch', 'crontab', 'c1', '-n', 'shop', '--type=merge', '-p', '{"spec":{"cronSpec":"1 2 3 4 5"}}']);
      expect(p.stdout.trim()).toBe('crontab.stable.example.com/c1 patched');
      await w.until((l) => l.some((x) => /^c1\s+1 2 3 4 5\s+4\s/.test(x)), 'the patched row');
    } finally {
      w.kill();
    }
  });

  it('kubectl apply changes a CRD in place: a new short name is served', async () => {
    const changed = crontabs();
    changed.spec.names.shortNames = ['ct', 'cts'];
    const res = await kubectl(r, ['apply', '-f', '-'], JSON.stringify(changed));
    expect(res.stderr).toBe('');
    expect(res.stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com configured');
    const crd = (await http(r, 'GET', `${CRD_PATH}/crontabs.stable.example.com`)).json;
    expect(crd.status.acceptedNames.shortNames).toEqual(['ct', 'cts']);
    expect(crd.metadata.generation).toBe(2);
    const got = await kubectl(r, ['get', 'cts', '-n', 'shop', '-o', 'name']);
    expect(got.stdout.trim().split('\n')).toContain('crontab.stable.example.com/c1');
  });

  it('ratchets: an unchanged invalid field does not block other changes after the schema tightened', async () => {
    const crd = (await http(r, 'GET', `${CRD_PATH}/crontabs.stable.example.com`)).json;
    crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.image.maxLength = 2;
    expect((await http(r, 'PUT', `${CRD_PATH}/crontabs.stable.example.com`, crd)).status).toBe(200);
    const base = '/apis/stable.example.com/v1/namespaces/shop/crontabs';
    const res = await waitFor('the new schema', async () => {
      const patched = await http(r, 'PATCH', `${base}/c1`, { spec: { mode: 'a' } }, { 'content-type': 'application/merge-patch+json' });
      return patched.status === 200 ? patched : undefined;
    });
    expect(res.json.spec).toMatchObject({ image: 'img', mode: 'a' });
    const tooLong = await waitFor('the new schema', async () => {
      const p = await http(r, 'PATCH', `${base}/c1`, { spec: { image: 'abc' } }, { 'content-type': 'application/merge-patch+json' });
      return p.status === 422 ? p : undefined;
    });
    expect(tooLong.json.message).toBe('CronTab.stable.example.com "c1" is invalid: spec.image: Too long: may not be more than 2 bytes');
  });

  it('RBAC applies to custom resources like any other', async () => {
    const path = '/apis/stable.example.com/v1/namespaces/shop/crontabs';
    expect((await http(r, 'GET', path, undefined, { authorization: 'Bearer dana-token' })).status).toBe(403);
    await http(r, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/shop/roles', {
      metadata: { name: 'crontab-reader' }, rules: [{ apiGroups: ['stable.example.com'], resources: ['crontabs'], verbs: ['get', 'list', 'watch'] }],
    });
    await http(r, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/shop/rolebindings', {
      metadata: { name: 'dana-reads' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'crontab-reader' },
      subjects: [{ kind: 'User', name: 'dana', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    const list = await http(r, 'GET', path, undefined, { authorization: 'Bearer dana-token' });
    expect(list.status).toBe(200);
    expect(list.json.items).toHaveLength(2);
    const create = await http(r, 'POST', path, { metadata: { name: 'x' } }, { authorization: 'Bearer dana-token' });
    expect(create.status).toBe(403);
    expect(create.json.message).toBe('crontabs.stable.example.com is forbidden: User "dana" cannot create resource "crontabs" in API group "stable.example.com" in the namespace "shop"');
  });

  it('deleting the CRD deletes its objects (watchers see DELETED, then the watch ends) and the type', async () => {
    const path = '/apis/stable.example.com/v1/namespaces/shop/crontabs?watch=true&resourceVersion=0';
    // One watcher at the canonical store, one at a replica, one over a WebSocket.
    const watchers = [
      (await httpWatch(r, path, { 'x-edgeplane-location': 'store' })).log,
      (await httpWatch(r, path)).log,
      (await wsWatch(r, path)).log,
    ];
    for (const w of watchers) await w.until((e) => e.length >= 2, 'the two objects');
    const del = await kubectl(r, ['delete', 'crd', 'crontabs.stable.example.com']);
    expect(del.stdout.trim()).toBe('customresourcedefinition.apiextensions.k8s.io "crontabs.stable.example.com" deleted');
    for (const w of watchers) {
      await w.untilEnded('the end of the watch');
      expect(w.events.slice(2).map((e) => [e.type, e.object.metadata.name]).sort()).toEqual([['DELETED', 'c1'], ['DELETED', 'c2']]);
    }
    expect((await http(r, 'GET', `${CRD_PATH}/crontabs.stable.example.com`)).status).toBe(404);
    expect((await http(r, 'GET', '/apis/stable.example.com/v1/namespaces/shop/crontabs')).status).toBe(404);
    expect((await http(r, 'GET', '/apis')).json.groups.map((g: { name: string }) => g.name)).not.toContain('stable.example.com');
    // Recreated, it starts empty.
    expect((await http(r, 'POST', CRD_PATH, crontabs())).status).toBe(201);
    const list = await waitFor('the recreated type', async () => {
      const l = await http(r, 'GET', '/apis/stable.example.com/v1/namespaces/shop/crontabs');
      return l.status === 200 ? l : undefined;
    });
    expect(list.json.items).toEqual([]);
  });
});
