// Encodings and defaults through the front door: YAML bodies and YAML answers, 406/415/405 exactly
// as kube-apiserver words them, apimachinery booleans in the query, and the defaults kubectl shows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { http, kubectl, startTestGateway, stopTestGateway, TOKEN, type Running } from './fixtures';
import { protobufToJson } from '../../core/protobuf/decode';

let r: Running;
const NS = 'enc';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const YAML = { 'content-type': 'application/yaml' };

beforeAll(async () => {
  r = await startTestGateway();
  expect((await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
});
afterAll(() => stopTestGateway(r));

async function names(): Promise<string[]> {
  return (await http(r, 'GET', CM)).json.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort();
}

const methodNotAllowed = {
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
  message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed',
  details: { causes: [{ reason: 'UnexpectedServerResponse', message: '405: Method Not Allowed' }] }, code: 405,
};

describe('YAML request bodies', () => {
  it('creates from application/yaml, YAML 1.1 scalars and all', async () => {
    const res = await http(r, 'POST', CM, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\n  labels: {a: b}\ndata:\n  answer: "42"\n  flag: "yes"\n', YAML);
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.json).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'from-yaml', labels: { a: 'b' } }, data: { answer: '42', flag: 'yes' } });
  });

  it('reads only the first document of a multi-document body', async () => {
    const res = await http(r, 'POST', CM, 'metadata: {name: first-doc}\n---\nmetadata: {name: second-doc}\n', YAML);
    expect(res.status).toBe(201);
    expect(res.json.metadata.name).toBe('first-doc');
    expect(await names()).not.toContain('second-doc');
  });

  it('updates from YAML', async () => {
    const res = await http(r, 'PUT', `${CM}/from-yaml`, 'metadata: {name: from-yaml}\ndata: {answer: "43"}\n', YAML);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ answer: '43' });
  });

  it('answers 400 for YAML that is not an object, and for an alias bomb, creating nothing', async () => {
    const before = await names();
    const list = await http(r, 'POST', CM, '- a\n- b\n', YAML);
    expect(list.status).toBe(400);
    expect(list.json).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    expect(list.json.message).toMatch(/^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: json: cannot unmarshal array into Go value/);
    const levels = ['metadata: {name: bomb}', 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
    const bomb = await http(r, 'POST', CM, levels.join('\n'), YAML);
    expect(bomb.status).toBe(400);
    expect(bomb.json.message).toContain('excessive aliasing');
    expect(await names()).toEqual(before);
    expect((await http(r, 'GET', '/healthz')).text).toBe('ok');
  });
});

describe('YAML answers', () => {
  it('get, list, create and errors answer in YAML when Accept asks for it', async () => {
    const accept = { accept: 'application/yaml' };
    const got = await http(r, 'GET', `${CM}/from-yaml`, undefined, accept);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('application/yaml');
    expect(got.text).toMatch(/^apiVersion: v1\ndata:\n  answer: "43"\nkind: ConfigMap\nmetadata:\n/);
    expect(parseYaml(got.text)).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'from-yaml' } });

    const list = await http(r, 'GET', CM, undefined, accept);
    expect(parseYaml(list.text)).toMatchObject({ kind: 'ConfigMapList', items: expect.arrayContaining([expect.objectContaining({ data: { answer: '43' } })]) });

    const created = await http(r, 'POST', CM, { metadata: { name: 'yaml-answer' } }, accept);
    expect(created.status).toBe(201);
    expect(parseYaml(created.text)).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'yaml-answer' } });

    const missing = await http(r, 'GET', `${CM}/nope`, undefined, accept);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/yaml');
    expect(parseYaml(missing.text)).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "nope" not found',
      reason: 'NotFound', details: { name: 'nope', kind: 'configmaps' }, code: 404,
    });
  });

  it('client-go\'s protobuf-then-JSON Accept gets protobuf: objects, lists, writes and errors', async () => {
    const accept = { accept: 'application/vnd.kubernetes.protobuf, application/json' };
    const raw = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${r.gateway.url}${path}`, {
        method, body: body === undefined ? undefined : JSON.stringify(body),
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...accept },
      });
      expect(res.headers.get('content-type')).toBe('application/vnd.kubernetes.protobuf');
      return { status: res.status, obj: protobufToJson(new Uint8Array(await res.arrayBuffer())) };
    };
    const json = (await http(r, 'GET', `${CM}/from-yaml`)).json;
    expect((await raw('GET', `${CM}/from-yaml`)).obj).toEqual(json);
    const list = await raw('GET', CM);
    expect(list.obj).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1', items: expect.arrayContaining([expect.objectContaining({ metadata: expect.objectContaining({ name: 'from-yaml' }) })]) });
    const created = await raw('POST', CM, { metadata: { name: 'pb-answer' }, data: { k: 'v' } });
    expect(created.status).toBe(201);
    expect(created.obj).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'pb-answer' }, data: { k: 'v' } });
    const missing = await raw('GET', `${CM}/nope`);
    expect(missing.status).toBe(404);
    expect(missing.obj).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "nope" not found',
      reason: 'NotFound', details: { name: 'nope', kind: 'configmaps' }, code: 404,
    });
    // kubectl get's Table has no protobuf form here: the JSON clause serves it.
    const table = await http(r, 'GET', CM, undefined, { accept: 'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    expect(table.json.kind).toBe('Table');
  });

  it('kubectl\'s typed commands read the protobuf answers', async () => {
    const res = await kubectl(r, ['-n', NS, 'create', 'configmap', 'typed', '--from-literal=a=b', '-v=8']);
    expect(res.code).toBe(0);
    expect(res.stdout.trim()).toBe('configmap/typed created');
    expect(res.stderr).toMatch(/Response Headers:[\s\S]*?Content-Type: application\/vnd\.kubernetes\.protobuf/i);
    const denied = await kubectl(r, ['-n', NS, 'create', 'configmap', 'typed', '--from-literal=a=b']);
    expect(denied.code).toBe(1);
    expect(denied.stderr.trim()).toBe('error: failed to create configmap: configmaps "typed" already exists');
  });

  it('406 for an Accept nothing can serve, before any write', async () => {
    const res = await http(r, 'POST', CM, { metadata: { name: 'never' } }, { accept: 'text/html' });
    expect(res.status).toBe(406);
    expect(res.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      reason: 'NotAcceptable', code: 406,
    });
    expect(await names()).not.toContain('never');
    const watch = await http(r, 'GET', `${CM}?watch=true&timeoutSeconds=1`, undefined, { accept: 'application/yaml' });
    expect(watch.status).toBe(406);
    expect(watch.json.message).toBe('only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch');
  });
});

describe('pretty JSON', () => {
  const path = `${CM}/from-yaml`;
  it('indents for curl and for pretty=true, not for other clients or pretty=false', async () => {
    const curl = await http(r, 'GET', path, undefined, { 'user-agent': 'curl/8.5.0' });
    expect(curl.text).toMatch(/^\{\n {2}"apiVersion": "v1",\n {2}"kind": "ConfigMap",\n/);
    expect(curl.json.metadata.name).toBe('from-yaml');
    expect((await http(r, 'GET', `${path}?pretty=true`)).text).toMatch(/^\{\n {2}"apiVersion"/);
    expect((await http(r, 'GET', `${path}?pretty=false`, undefined, { 'user-agent': 'curl/8.5.0' })).text).toMatch(/^\{"apiVersion"/);
    expect((await http(r, 'GET', path, undefined, { 'user-agent': 'kubectl/v1.32.0' })).text).toMatch(/^\{"apiVersion"/);
    const missing = await http(r, 'GET', `${CM}/nope?pretty=1`);
    expect(missing.status).toBe(404);
    expect(missing.text).toMatch(/^\{\n {2}"kind": "Status"/);
  });

  it('never indents watch events', async () => {
    const res = await http(r, 'GET', `${CM}?watch=1&pretty=true&timeoutSeconds=1&fieldSelector=metadata.name%3Dfrom-yaml`, undefined, { 'user-agent': 'curl/8.5.0' });
    expect(res.text.split('\n')[0]).toMatch(/^\{"type":"ADDED"/);
  });
});

describe('refused requests', () => {
  it('415 for a body in a media type the server does not read', async () => {
    const res = await http(r, 'POST', CM, 'name=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(415);
    expect(res.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      reason: 'UnsupportedMediaType', code: 415,
    });
  });

  it.each([
    ['PUT on a collection', 'PUT', CM],
    ['PATCH on a collection', 'PATCH', CM],
    ['POST on an item', 'POST', `${CM}/from-yaml`],
    ['DELETE of /status', 'DELETE', `/api/v1/namespaces/${NS}/pods/p/status`],
    ['POST to /status', 'POST', `/apis/apps/v1/namespaces/${NS}/deployments/d/status`],
    ['DELETE of all namespaces', 'DELETE', '/api/v1/namespaces'],
  ])('405 for %s', async (_name, method, path) => {
    const before = await names();
    const res = await http(r, method, path, { metadata: { name: 'from-yaml' } }, method === 'PATCH' ? { 'content-type': 'application/merge-patch+json' } : {});
    expect(res.status).toBe(405);
    expect(res.json).toEqual(methodNotAllowed);
    expect(await names()).toEqual(before);
  });
});

describe('boolean query parameters', () => {
  it.each(['True', 'true', '1', 'yes', ''])('watch=%j starts a watch', async (v) => {
    const res = await http(r, 'GET', `${CM}?watch=${v}&timeoutSeconds=1&fieldSelector=metadata.name%3Dfrom-yaml`);
    expect(res.status).toBe(200);
    const events = res.text.trim().split('\n').map((l) => JSON.parse(l));
    expect(events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'from-yaml' } } });
  });

  it.each(['False', 'false', '0', 'FALSE'])('watch=%j lists', async (v) => {
    const res = await http(r, 'GET', `${CM}?watch=${v}`);
    expect(res.json.kind).toBe('ConfigMapList');
  });

  it('allowWatchBookmarks=True with sendInitialEvents=True ends the initial state with a bookmark', async () => {
    const res = await http(r, 'GET', `${CM}?watch=True&allowWatchBookmarks=True&sendInitialEvents=True&resourceVersionMatch=NotOlderThan&timeoutSeconds=1`);
    const events = res.text.trim().split('\n').map((l) => JSON.parse(l));
    const bookmark = events.find((e) => e.type === 'BOOKMARK');
    expect(bookmark?.object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
  });
});

describe('defaults kubectl shows', () => {
  it('kubectl describe deployment shows the RollingUpdate strategy', async () => {
    expect((await kubectl(r, ['-n', NS, 'create', 'deployment', 'web', '--image=nginx'])).code).toBe(0);
    const res = await kubectl(r, ['-n', NS, 'describe', 'deployment', 'web']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^StrategyType:\s+RollingUpdate$/m);
    expect(res.stdout).toMatch(/^RollingUpdateStrategy:\s+25% max unavailable, 25% max surge$/m);
    expect(res.stdout).toMatch(/^MinReadySeconds:\s+0$/m);
    const json = JSON.parse((await kubectl(r, ['-n', NS, 'get', 'deployment', 'web', '-o', 'json'])).stdout);
    expect(json.spec).toMatchObject({ replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 });
    expect(json.spec.template.spec.containers[0]).toMatchObject({ imagePullPolicy: 'Always', terminationMessagePolicy: 'File', resources: {} });
    expect(json.status).toEqual({});
  });

  it('kubectl create secret generic --from-literal stores base64 data of type Opaque', async () => {
    expect((await kubectl(r, ['-n', NS, 'create', 'secret', 'generic', 'lit', '--from-literal=user=admin', '--from-literal=pass=pä55'])).code).toBe(0);
    const json = JSON.parse((await kubectl(r, ['-n', NS, 'get', 'secret', 'lit', '-o', 'json'])).stdout);
    expect(json.type).toBe('Opaque');
    expect(json.data).toEqual({ user: Buffer.from('admin').toString('base64'), pass: Buffer.from('pä55').toString('base64') });
  });

  it('a manifest with stringData is stored as data, without stringData, and reapplying it changes nothing', async () => {
    const manifest = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: manifest\n  namespace: ${NS}\nstringData:\n  token: abc\ndata:\n  kept: a2VwdA==\n`;
    expect((await kubectl(r, ['create', '-f', '-'], manifest)).code).toBe(0);
    const json = JSON.parse((await kubectl(r, ['-n', NS, 'get', 'secret', 'manifest', '-o', 'json'])).stdout);
    expect(json.data).toEqual({ kept: 'a2VwdA==', token: Buffer.from('abc').toString('base64') });
    expect(json.stringData).toBeUndefined();
    expect(json.type).toBe('Opaque');
    const replaced = await kubectl(r, ['replace', '-f', '-'], manifest);
    expect(replaced.code).toBe(0);
    const again = JSON.parse((await kubectl(r, ['-n', NS, 'get', 'secret', 'manifest', '-o', 'json'])).stdout);
    expect(again.metadata.resourceVersion).toBe(json.metadata.resourceVersion);
  });

  it('kubectl create -f with a YAML file (sent as JSON) gets the service defaults and status', async () => {
    const svc = `apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: ${NS}\nspec:\n  type: NodePort\n  selector: {app: web}\n  ports:\n  - port: 80\n`;
    expect((await kubectl(r, ['create', '-f', '-'], svc)).code).toBe(0);
    const json = JSON.parse((await kubectl(r, ['-n', NS, 'get', 'service', 'web', '-o', 'json'])).stdout);
    expect(json.spec).toMatchObject({
      type: 'NodePort', sessionAffinity: 'None', externalTrafficPolicy: 'Cluster', internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    });
    expect(json.status).toEqual({ loadBalancer: {} });
  });

  it('a namespace carries its name label', async () => {
    const json = (await http(r, 'GET', `/api/v1/namespaces/${NS}`)).json;
    expect(json.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': NS });
    expect(json.spec).toEqual({ finalizers: ['kubernetes'] });
  });
});
