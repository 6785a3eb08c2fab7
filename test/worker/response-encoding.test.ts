// YAML answers and pretty JSON as kube-apiserver writes them.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Hono } from 'hono';
import { encodeResponse, isPrettyPrint, jsonResponse, jsonToYaml } from '../../worker/response-encoding';
import { parseResourcePath } from '../../core/request-info';
import type { AppEnv } from '../../worker/env';
import { BODY_NEWLINE_HEADER } from '../../contract/headers';

describe('jsonToYaml', () => {
  it('sorts keys, does not indent sequences under their key, and writes null and empty collections', () => {
    const yaml = jsonToYaml(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', creationTimestamp: null }, data: {}, list: ['x', { b: 1 }], empty: [] }));
    expect(yaml).toBe('apiVersion: v1\ndata: {}\nempty: []\nkind: ConfigMap\nlist:\n- x\n- b: 1\nmetadata:\n  creationTimestamp: null\n  name: a\n');
  });

  it('quotes strings a YAML 1.1 reader would take for booleans, numbers or dates', () => {
    const data = { a: 'yes', b: 'y', c: 'on', d: '0755', e: '2024-01-01', f: 'Off', g: '1e3', h: 'true', i: '12:30', j: 'plain', k: '' };
    const yaml = jsonToYaml(JSON.stringify({ data }));
    expect(parse(yaml, { version: '1.1' })).toEqual({ data });
    expect(parse(yaml)).toEqual({ data });
    expect(yaml).toContain('a: "yes"');
    expect(yaml).toContain('j: plain');
  });
});

describe('isPrettyPrint', () => {
  const req = (query: string, agent?: string) => new Request(`https://x/api/v1/pods${query}`, { headers: agent ? { 'user-agent': agent } : {} });
  it.each([
    ['', 'curl/8.5.0', true], ['', 'Wget/1.21', true], ['', 'Mozilla/5.0 (X11)', true], ['', 'kubectl/v1.32.0', false], ['', undefined, false],
    ['?pretty=true', undefined, true], ['?pretty=1', undefined, true], ['?pretty=T', undefined, true],
    ['?pretty=false', 'curl/8.5.0', false], ['?pr%65tty=true', undefined, true], ['?a=pretty', 'curl/8.5.0', true], ['?a=1&pretty=0', undefined, false], ['?pretty=yes', undefined, false], ['?pretty=', 'curl/8.5.0', true],
  ])('query %j, agent %j → %s', (query, agent, want) => {
    expect(isPrettyPrint(req(query, agent))).toBe(want);
  });
});

describe('encodeResponse', () => {
  const app = (made: (body: string) => Response) => {
    const a = new Hono<AppEnv>();
    a.use('*', encodeResponse);
    a.get('*', (c) => {
      c.set('request', parseResourcePath('GET', new URL(c.req.url).pathname, false));
      const res = made('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}');
      res.headers.append('warning', '299 - "w"');
      return res;
    });
    return a;
  };
  const made = (body: string) => jsonResponse(200, body);
  const streamed = (body: string) => new Response(new Blob([body]).stream(), { status: 200, headers: { 'content-type': 'application/json' } });

  it.each([['made from a string', made], ['streamed', streamed]])('ends compact JSON with one newline, and re-encodes YAML and pretty JSON (%s)', async (_, make) => {
    const res = await app(make).request('/api/v1/namespaces/ns/configmaps/a', { headers: { 'user-agent': 'kubectl/v1.32.0' } });
    expect(await res.text()).toBe('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}\n');
    expect(res.headers.get('warning')).toBe('299 - "w"');
    const yaml = await app(make).request('/api/v1/namespaces/ns/configmaps/a', { headers: { accept: 'application/yaml' } });
    expect(await yaml.text()).toBe('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n');
    const pretty = await app(make).request('/api/v1/namespaces/ns/configmaps/a?pretty=true');
    expect(JSON.parse(await pretty.text())).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a' } });
  });

  it('passes a list body that ends with its newline already (a store\'s) on as it is, without the internal header', async () => {
    const listed = (body: string) => new Response(new Blob([`${body}\n`]).stream(), { status: 200, headers: { 'content-type': 'application/json', [BODY_NEWLINE_HEADER]: '1' } });
    const res = await app(listed).request('/api/v1/namespaces/ns/configmaps/a', { headers: { 'user-agent': 'kubectl/v1.32.0' } });
    expect(await res.text()).toBe('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}\n');
    expect(res.headers.has(BODY_NEWLINE_HEADER)).toBe(false);
    const yaml = await app(listed).request('/api/v1/namespaces/ns/configmaps/a', { headers: { accept: 'application/yaml' } });
    expect(await yaml.text()).toBe('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n');
    expect(yaml.headers.has(BODY_NEWLINE_HEADER)).toBe(false);
    const pretty = await app(listed).request('/api/v1/namespaces/ns/configmaps/a?pretty=true');
    const text = await pretty.text();
    expect(text.endsWith('}')).toBe(true);
    expect(JSON.parse(text)).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a' } });
  });
});
