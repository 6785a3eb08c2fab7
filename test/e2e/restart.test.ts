// Durability: objects and the revision counter survive stopping and restarting the gateway.
import { afterAll, describe, expect, it } from 'vitest';
import { http, startTestGateway, stopTestGateway, type Running } from './fixtures';

let r: Running | undefined;
afterAll(() => stopTestGateway(r));

describe('restart durability', () => {
  it('keeps objects and continues the revision counter after a restart', async () => {
    r = await startTestGateway();
    const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } });
    for (const name of ['one', 'two', 'three']) {
      expect((await http(r, 'POST', '/api/v1/namespaces/default/configmaps', cm(name))).status).toBe(201);
    }
    await http(r, 'DELETE', '/api/v1/namespaces/default/configmaps/two');
    const before = await http(r, 'GET', '/api/v1/namespaces/default/configmaps');
    const rvBefore = Number(before.json.metadata.resourceVersion);

    await stopTestGateway(r, true);
    r = await startTestGateway({ persistDir: r.persistDir });

    const after = await http(r, 'GET', '/api/v1/namespaces/default/configmaps');
    expect(after.json.metadata.resourceVersion).toBe(String(rvBefore));
    expect(after.json.items).toEqual(before.json.items);
    const created = await http(r, 'POST', '/api/v1/namespaces/default/configmaps', cm('four'));
    expect(Number(created.json.metadata.resourceVersion)).toBe(rvBefore + 1);
    // The log survived too: an Exact list at the old revision is still served.
    const exact = await http(r, 'GET', `/api/v1/namespaces/default/configmaps?resourceVersion=${rvBefore}&resourceVersionMatch=Exact`);
    expect(exact.status).toBe(200);
    expect(exact.json.items.map((i: any) => i.metadata.name)).toEqual(['one', 'three']);
    expect((await http(r, 'GET', '/api/v1/namespaces/default')).status).toBe(200);
  });
});
