// Bad input through the front door: each gets kube-apiserver's Status, the gateway stays healthy,
// and no object changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestGateway, stopTestGateway, type Running } from './fixtures';

let r: Running;
const CM = '/api/v1/namespaces/default/configmaps';
const cm = (name: string, extra: Record<string, unknown> = {}) =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' }, ...extra });

beforeAll(async () => {
  r = await startTestGateway({ vars: { STATIC_TOKENS: 'nobody-token,nobody,uid-n' } });
  expect((await http(r, 'POST', CM, cm('keep'))).status).toBe(201);
});
afterAll(() => stopTestGateway(r));

interface Case {
  name: string;
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  code: number;
  reason: string;
  message?: string | RegExp;
}

const cases: Case[] = [
  { name: 'malformed JSON', method: 'POST', path: CM, body: '{"metadata": {', code: 400, reason: 'BadRequest' },
  { name: 'wrong apiVersion for the path', method: 'POST', path: CM, body: cm('x', { apiVersion: 'apps/v1' }), code: 400, reason: 'BadRequest',
    message: 'the API version in the data (apps/v1) does not match the expected API version (v1)' },
  { name: 'wrong kind for the path', method: 'POST', path: CM, body: cm('x', { kind: 'Secret' }), code: 400, reason: 'BadRequest' },
  { name: 'missing name', method: 'POST', path: CM, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, code: 422, reason: 'Invalid',
    message: 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required' },
  { name: 'invalid name', method: 'POST', path: CM, body: cm('Bad_Name'), code: 422, reason: 'Invalid', message: /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/ },
  { name: 'namespace mismatch', method: 'POST', path: CM, body: cm('x', { metadata: { name: 'x', namespace: 'kube-system' } }), code: 400, reason: 'BadRequest',
    message: 'the namespace of the provided object does not match the namespace sent on the request' },
  { name: 'name mismatch on update', method: 'PUT', path: `${CM}/keep`, body: cm('other'), code: 400, reason: 'BadRequest',
    message: 'the name of the object (other) does not match the name on the URL (keep)' },
  { name: 'oversized body', method: 'POST', path: CM, body: JSON.stringify(cm('big', { data: { a: 'x'.repeat(3 * 1024 * 1024) } })), code: 413, reason: 'RequestEntityTooLarge' },
  { name: 'unknown resource', method: 'GET', path: '/api/v1/namespaces/default/widgets', code: 404, reason: 'NotFound', message: 'the server could not find the requested resource' },
  { name: 'unknown group', method: 'GET', path: '/apis/nope.example.com/v1/things', code: 404, reason: 'NotFound' },
  { name: 'invalid label selector', method: 'GET', path: `${CM}?labelSelector=${encodeURIComponent('a in b')}`, code: 400, reason: 'BadRequest' },
  { name: 'unsupported field selector', method: 'GET', path: '/api/v1/namespaces/default/pods?fieldSelector=spec.foo%3Dx', code: 400, reason: 'BadRequest', message: 'field label not supported: spec.foo' },
  { name: 'field selector a configmap lacks', method: 'GET', path: `${CM}?fieldSelector=data.a%3Dx`, code: 400, reason: 'BadRequest', message: '"data.a" is not a known field selector: only "metadata.name", "metadata.namespace"' },
  { name: 'non-numeric resourceVersion', method: 'GET', path: `${CM}?resourceVersion=abc`, code: 400, reason: 'BadRequest' },
  { name: 'resourceVersionMatch without resourceVersion', method: 'GET', path: `${CM}?resourceVersionMatch=Exact`, code: 422, reason: 'Invalid',
    message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided' },
  { name: 'resourceVersion with continue', method: 'GET', path: `${CM}?resourceVersion=5&continue=abc&limit=1`, code: 400, reason: 'BadRequest',
    message: 'specifying resource version is not allowed when using continue' },
  { name: 'garbage continue token', method: 'GET', path: `${CM}?continue=notatoken&limit=1`, code: 400, reason: 'BadRequest' },
  { name: 'unknown patch type', method: 'PATCH', path: `${CM}/keep`, body: '{}', headers: { 'content-type': 'application/xml' }, code: 415, reason: 'UnsupportedMediaType' },
  { name: 'server-side apply without a fieldManager', method: 'PATCH', path: `${CM}/keep`, body: '{}', headers: { 'content-type': 'application/apply-patch+yaml' }, code: 422, reason: 'Invalid',
    message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch' },
  { name: 'server-side apply of something that is not an object', method: 'PATCH', path: `${CM}/keep?fieldManager=x`, body: '[1]', headers: { 'content-type': 'application/apply-patch+yaml' }, code: 400, reason: 'BadRequest' },
  { name: 'create with a name in the path', method: 'POST', path: `${CM}/keep`, body: cm('keep'), code: 405, reason: 'MethodNotAllowed' },
  { name: 'create across all namespaces', method: 'POST', path: '/api/v1/configmaps', body: cm('x'), code: 405, reason: 'MethodNotAllowed' },
  { name: 'stale resourceVersion on update', method: 'PUT', path: `${CM}/keep`, body: cm('keep', { metadata: { name: 'keep', resourceVersion: '99999' } }), code: 409, reason: 'Conflict' },
  { name: 'unknown field with fieldValidation=Strict', method: 'POST', path: `${CM}?fieldValidation=Strict`, body: cm('x', { datta: {}, metadata: { name: 'x', lables: {} } }),
    code: 400, reason: 'BadRequest', message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.lables", unknown field "datta"' },
  { name: 'invalid fieldValidation', method: 'POST', path: `${CM}?fieldValidation=Loose`, body: cm('x'), code: 400, reason: 'BadRequest' },
  { name: 'a JSON patch test that fails', method: 'PATCH', path: `${CM}/keep`, body: '[{"op":"test","path":"/data/a","value":"2"}]',
    headers: { 'content-type': 'application/json-patch+json' }, code: 422, reason: 'Invalid' },
];

describe('bad input', () => {
  it.each(cases)('$name → $code $reason', async (c) => {
    const before = await http(r, 'GET', CM);
    const res = await http(r, c.method, c.path, c.body, c.headers);
    expect(res.status).toBe(c.code);
    expect(res.json).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: c.reason, code: c.code });
    if (typeof c.message === 'string') expect(res.json.message).toBe(c.message);
    else if (c.message) expect(res.json.message).toMatch(c.message);
    const after = await http(r, 'GET', CM);
    expect(after.json).toEqual(before.json);
    expect((await http(r, 'GET', '/healthz')).text).toBe('ok');
  });

  it('drops unknown fields with a warning under the default fieldValidation=Warn', async () => {
    const res = await http(r, 'POST', CM, cm('warned', { datta: { a: 'b' } }));
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toBe('299 - "unknown field \\"datta\\""');
    expect(res.json.datta).toBeUndefined();
    expect((await http(r, 'GET', `${CM}/warned`)).json.datta).toBeUndefined();
  });

  it('refuses requests without a valid bearer token', async () => {
    for (const headers of [{ authorization: '' }, { authorization: 'Bearer wrong' }, { authorization: 'Basic abc' }]) {
      const res = await http(r, 'GET', CM, undefined, headers);
      expect(res.status).toBe(401);
      expect(res.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    }
  });
});

describe('early answers to a client still sending', () => {
  it('delivers a 401 and a 403 decided before a 2.5 MB body was read, instead of closing the connection', async () => {
    const body = JSON.stringify({ metadata: { name: 'big' }, data: { a: 'x'.repeat(2_500_000) } });
    for (const [token, code] of [['not-a-token', 401], ['nobody-token', 403]] as const) {
      const res = await fetch(`${r.gateway.url}/api/v1/namespaces/default/configmaps`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body,
      });
      expect(res.status).toBe(code);
      expect(((await res.json()) as { kind: string }).kind).toBe('Status');
    }
  });
});
