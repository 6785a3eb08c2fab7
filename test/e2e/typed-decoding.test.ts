// Typed decoding through the front door and kubectl: wrong types are kube's 400 and store nothing,
// /status bodies are decoded too, unknown fields follow fieldValidation at any depth, and quantities are
// stored canonical.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running } from './fixtures';

let r: Running;
const CM = '/api/v1/namespaces/default/configmaps';
const PODS = '/api/v1/namespaces/default/pods';
const pod = (name: string, container: Record<string, unknown> = {}) =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx', ...container }] } });

beforeAll(async () => {
  r = await startTestGateway();
});
afterAll(() => stopTestGateway(r));

describe('typed decoding', () => {
  it('a number in ConfigMap data is 400 with kube\'s Status, and nothing is stored', async () => {
    const res = await http(r, 'POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n' }, data: { n: 5 } });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
      reason: 'BadRequest', code: 400,
    });
    expect((await http(r, 'GET', `${CM}/n`)).status).toBe(404);
  });

  it('a /status write with a wrong type is 400 and leaves the pod as it was', async () => {
    expect((await http(r, 'POST', PODS, pod('st'))).status).toBe(201);
    const before = await http(r, 'GET', `${PODS}/st`);
    const res = await http(r, 'PUT', `${PODS}/st/status`, { ...before.json, status: { conditions: 5 } });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe('Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field PodStatus.status.conditions of type []v1.PodCondition');
    expect((await http(r, 'GET', `${PODS}/st`)).json).toEqual(before.json);
  });

  it('kubectl apply of a pod with a misspelled field prints kube\'s strict error', async () => {
    const manifest = JSON.stringify({ ...pod('typo', { imagee: 'nginx:1.27' }), metadata: { name: 'typo', namespace: 'default' } });
    const res = await kubectl(r, ['apply', '-f', '-'], manifest);
    expect(res.code).not.toBe(0);
    expect(res.stderr.trim()).toBe('Error from server (BadRequest): error when creating "STDIN": Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].imagee"');
    expect((await http(r, 'GET', `${PODS}/typo`)).status).toBe(404);
  });

  it('Warn (the default) answers a Warning per unknown field at depth and stores the object without it', async () => {
    const res = await http(r, 'POST', PODS, pod('warned', { imagee: 'x', ports: [{ containerPort: 80, hostPortt: 1 }] }));
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toBe('299 - "unknown field \\"spec.containers[0].imagee\\"", 299 - "unknown field \\"spec.containers[0].ports[0].hostPortt\\""');
    const stored = (await http(r, 'GET', `${PODS}/warned`)).json;
    expect(stored.spec.containers[0].imagee).toBeUndefined();
    expect(stored.spec.containers[0].ports[0]).toEqual({ containerPort: 80, protocol: 'TCP' });
  });

  it('Strict rejects an unknown field at depth with 400', async () => {
    const res = await http(r, 'POST', `${PODS}?fieldValidation=Strict`, pod('strict', { ports: [{ containerPort: 80, hostPortt: 1 }] }));
    expect(res.status).toBe(400);
    expect(res.json.message).toBe('Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].ports[0].hostPortt"');
  });

  it('stores quantities in canonical form', async () => {
    const res = await http(r, 'POST', PODS, pod('q', { resources: { limits: { cpu: '1.5', memory: '0.5Gi' }, requests: { cpu: 0.25, memory: '1536Mi' } } }));
    expect(res.status).toBe(201);
    const stored = (await http(r, 'GET', `${PODS}/q`)).json;
    expect(stored.spec.containers[0].resources).toEqual({ limits: { cpu: '1500m', memory: '512Mi' }, requests: { cpu: '250m', memory: '1536Mi' } });
  });
});
