// Large LISTs through the gateway: a body the store streams in pieces (core/list/list-pieces.ts, ~256 Ki characters each)
// arrives as kube-apiserver writes one (its items exactly the objects a GET answers, one trailing newline), from
// the store and from a replica, paged, as YAML, indented JSON, protobuf and a Table; a client that leaves mid-body
// breaks nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { request } from 'node:http';
import { http, kubectl, startTestGateway, stopTestGateway, TOKEN, type Running } from './fixtures';
import { protobufToJson } from '../../core/protobuf/decode';

let r: Running;
const NS = 'big';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const COUNT = 120;
// ~6.6 KB of UTF-8 each (two- and four-byte characters too): 120 of them are ~800 KB, several pieces, and the
// pieces' boundaries fall inside items and, somewhere, between the bytes of a character were it split.
const value = (i: number) => `${'é'.repeat(i)}${'x'.repeat(6000 - 2 * i)}😀${i}`;
const names = Array.from({ length: COUNT }, (_, i) => `cm-${String(i).padStart(3, '0')}`);

beforeAll(async () => {
  r = await startTestGateway();
  expect((await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
  for (let i = 0; i < COUNT; i += 12) {
    const batch = names.slice(i, i + 12).map((name, j) => http(r, 'POST', CM, { metadata: { name, labels: { half: String((i + j) % 2) } }, data: { v: value(i + j) } }));
    for (const res of await Promise.all(batch)) expect(res.status).toBe(201);
  }
});
afterAll(() => stopTestGateway(r));

async function getEach(): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let i = 0; i < COUNT; i += 20) out.push(...(await Promise.all(names.slice(i, i + 20).map(async (n) => (await http(r, 'GET', `${CM}/${n}`)).json))));
  return out;
}

describe('a list larger than one piece', () => {
  it('is kube\'s PodList shape, items exactly as GET answers them, one newline at the end: cache, consistent and exact reads', async () => {
    const objects = await getEach();
    const consistent = await http(r, 'GET', CM);
    expect(consistent.status).toBe(200);
    expect(consistent.text.length).toBeGreaterThan(700_000);
    expect(consistent.text.endsWith('}\n')).toBe(true);
    expect(consistent.text.endsWith('\n\n')).toBe(false);
    const rv = consistent.json.metadata.resourceVersion;
    expect(consistent.json).toEqual({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: rv }, items: objects });
    for (const query of ['?resourceVersion=0', `?resourceVersion=${rv}&resourceVersionMatch=Exact`, `?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`]) {
      const res = await http(r, 'GET', `${CM}${query}`);
      expect(res.status, query).toBe(200);
      expect(res.text.endsWith('}\n') && !res.text.endsWith('\n\n'), query).toBe(true);
      expect(res.json.items, query).toEqual(objects);
    }
  });

  it('pages of a limit, joined, are the whole list; a label selector filters across pieces', async () => {
    const whole = (await http(r, 'GET', CM)).json;
    const items: unknown[] = [];
    let token = '';
    let pages = 0;
    do {
      const page = await http(r, 'GET', `${CM}?limit=50${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
      expect(page.status).toBe(200);
      items.push(...page.json.items);
      token = page.json.metadata.continue ?? '';
      pages++;
    } while (token);
    expect(pages).toBe(3);
    expect(items).toEqual(whole.items);
    const half = await http(r, 'GET', `${CM}?labelSelector=half%3D1`);
    expect(half.json.items.map((o: { metadata: { name: string } }) => o.metadata.name)).toEqual(names.filter((_, i) => i % 2 === 1));
  });

  it('as YAML, indented JSON, protobuf and a Table', async () => {
    const whole = (await http(r, 'GET', CM)).json;
    const yaml = await http(r, 'GET', CM, undefined, { accept: 'application/yaml' });
    expect(yaml.headers.get('content-type')).toBe('application/yaml');
    expect(parseYaml(yaml.text)).toEqual(whole);
    const pretty = await http(r, 'GET', `${CM}?pretty=true`);
    expect(pretty.text.startsWith('{\n  "kind": "ConfigMapList",\n')).toBe(true);
    expect(JSON.parse(pretty.text)).toEqual(whole);
    const res = await fetch(`${r.gateway.url}${CM}`, { headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/vnd.kubernetes.protobuf' } });
    expect(res.headers.get('content-type')).toBe('application/vnd.kubernetes.protobuf');
    const decoded = protobufToJson(new Uint8Array(await res.arrayBuffer())) as { items: unknown[] };
    expect(decoded.items).toHaveLength(COUNT);
    const got = await kubectl(r, ['get', 'configmaps', '-n', NS, '--no-headers']);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout.trim().split('\n').map((l) => l.split(/\s+/)[0])).toEqual(names);
  });

  it('a client that leaves after the first bytes: the next lists and writes are answered', async () => {
    for (let i = 0; i < 3; i++) {
      await new Promise<void>((resolve, reject) => {
        const req = request(`${r.gateway.url}${CM}`, { headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', (e) => (req.destroyed ? resolve() : reject(e)));
        req.end();
      });
    }
    expect((await http(r, 'POST', CM, { metadata: { name: 'after' } })).status).toBe(201);
    const list = await http(r, 'GET', CM);
    expect(list.status).toBe(200);
    expect(list.json.items).toHaveLength(COUNT + 1);
  });
});
