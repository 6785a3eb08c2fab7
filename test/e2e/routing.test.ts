// Routing on the watch path, at the store (REPLICA_LOCATIONS '') and at replicas: name watches in one
// namespace and across all of them, the per-user watch quota, clients spread over the replicas of a
// location, and namespace deletion racing concurrent creates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestGateway, stopTestGateway, watcherCount, type Running } from './fixtures';
import { httpWatch, wsWatch, type OpenWatch, type WatchEventMsg } from './watch-streams';

const USERS = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7', 'u8'];
const bearer = (user: string) => ({ authorization: `Bearer ${user}-token` });
const TOO_MANY = {
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Too many requests, please try again later.',
  reason: 'TooManyRequests', details: { retryAfterSeconds: 1 }, code: 429,
};
const summary = (e: WatchEventMsg) => `${e.type}:${e.object.metadata.namespace ?? ''}/${e.object.metadata.name}`;

/** Polls `check` every 100 ms until it holds; fails with `what` after `timeoutMs`. */
async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

for (const mode of ['store', 'replicas'] as const) {
  describe(`routing at the ${mode}`, () => {
    let r: Running;
    beforeAll(async () => {
      r = await startTestGateway({
        vars: {
          REPLICA_LOCATIONS: mode === 'store' ? '' : 'enam', REPLICAS_PER_LOCATION: '2', MAX_WATCHES_PER_USER: '2',
          STATIC_TOKENS: USERS.map((u) => `${u}-token,${u},uid-${u},"watchers"`).join('\n'),
          WATCH_HEARTBEAT_SECONDS: '1',
        },
      });
      const binding = await http(r, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
        metadata: { name: 'watchers-view' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'watchers' }],
      });
      expect(binding.status).toBe(201);
    });
    afterAll(() => stopTestGateway(r));

    it('delivers name watches in one namespace and across all namespaces, over HTTP and WebSocket', async () => {
      for (const ns of ['name-a', 'name-b']) expect((await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
      const head = (await http(r, 'GET', '/api/v1/configmaps')).json.metadata.resourceVersion;
      const nsHead = (await http(r, 'GET', '/api/v1/namespaces')).json.metadata.resourceVersion;
      const q = (name: string, rv: string) => `?watch=true&fieldSelector=metadata.name%3D${name}&resourceVersion=${rv}`;
      const paths = {
        namespaced: `/api/v1/namespaces/name-a/configmaps${q('x', head)}`,
        allNamespaces: `/api/v1/configmaps${q('x', head)}`,
        legacyPath: `/api/v1/watch/namespaces/name-a/configmaps/x?resourceVersion=${head}`,
        clusterScoped: `/api/v1/namespaces${q('name-c', nsHead)}`,
      };
      const watches: [string, keyof typeof paths, OpenWatch][] = [];
      for (const key of Object.keys(paths) as (keyof typeof paths)[]) {
        watches.push([`http ${key}`, key, await httpWatch(r, paths[key])]);
        watches.push([`ws ${key}`, key, await wsWatch(r, paths[key])]);
      }
      const cm = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
      expect((await http(r, 'POST', cm('name-a'), { metadata: { name: 'x' } })).status).toBe(201);
      expect((await http(r, 'POST', cm('name-a'), { metadata: { name: 'y' } })).status).toBe(201);
      expect((await http(r, 'POST', cm('name-b'), { metadata: { name: 'x' } })).status).toBe(201);
      expect((await http(r, 'PUT', `${cm('name-a')}/x`, { metadata: { name: 'x' }, data: { v: '2' } })).status).toBe(200);
      expect((await http(r, 'DELETE', `${cm('name-b')}/x`)).status).toBe(200);
      expect((await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: 'name-c' } })).status).toBe(201);
      expect((await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: 'name-d' } })).status).toBe(201);
      const expected: Record<keyof typeof paths, string[]> = {
        namespaced: ['ADDED:name-a/x', 'MODIFIED:name-a/x'],
        legacyPath: ['ADDED:name-a/x', 'MODIFIED:name-a/x'],
        allNamespaces: ['ADDED:name-a/x', 'ADDED:name-b/x', 'MODIFIED:name-a/x', 'DELETED:name-b/x'],
        clusterScoped: ['ADDED:/name-c'],
      };
      // A last event every configmap watch must see after the others, so nothing extra can still arrive.
      expect((await http(r, 'PUT', `${cm('name-a')}/x`, { metadata: { name: 'x' }, data: { v: '3' } })).status).toBe(200);
      for (const key of ['namespaced', 'legacyPath', 'allNamespaces'] as const) expected[key].push('MODIFIED:name-a/x');
      for (const [what, key, w] of watches) {
        await w.log.until((e) => e.length >= expected[key].length, `${what} events`);
        expect(w.log.events.map(summary), what).toEqual(expected[key]);
        w.close();
      }
    });

    it(`caps each user's watches per type (MAX_WATCHES_PER_USER) with 429 and Retry-After`, async () => {
      const path = '/api/v1/namespaces/default/configmaps?watch=true';
      const held = [await httpWatch(r, path, bearer('u1')), await wsWatch(r, path, { headers: bearer('u1') })];
      expect(held.map((w) => w.log.status)).toEqual([200, 101]);
      const refused = await http(r, 'GET', path, undefined, bearer('u1'));
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.json).toEqual(TOO_MANY);
      await expect(wsWatch(r, path, { headers: bearer('u1') })).rejects.toThrow('websocket upgrade answered 429');
      // A client cannot pass as someone else with the internal header.
      const spoofed = await http(r, 'GET', path, undefined, { ...bearer('u1'), 'x-edgeplane-user': 'u2' });
      expect(spoofed.json).toEqual(TOO_MANY);
      // Other users, other types, and system:masters are not held back by u1's watches.
      const others = [
        await httpWatch(r, path, bearer('u2')),
        await httpWatch(r, '/api/v1/namespaces/default/secrets?watch=true', bearer('u1')).catch(() => undefined),
        await httpWatch(r, path),
        await httpWatch(r, path),
        await httpWatch(r, path),
      ];
      expect(others.map((w) => w?.log.status)).toEqual([200, 403, 200, 200, 200]); // view cannot watch secrets
      const pods = await httpWatch(r, '/api/v1/namespaces/default/pods?watch=true', bearer('u1'));
      expect(pods.log.status).toBe(200);
      // Once one of u1's watches ends, u1 may watch again.
      held.pop()!.close();
      await eventually(async () => (await http(r, 'GET', `${path}&timeoutSeconds=1`, undefined, bearer('u1'))).status === 200, 'u1 admitted again');
      for (const w of [...held, ...others, pods]) w?.close();
    });

    if (mode === 'replicas') {
      it('spreads clients over the replicas of a location, each client staying on one', async () => {
        const path = '/api/v1/namespaces/default/endpoints?watch=true';
        const watches: OpenWatch[] = [];
        for (const u of USERS) watches.push(await httpWatch(r, path, bearer(u)), await httpWatch(r, path, bearer(u)));
        await eventually(async () => (await watcherCount(r, 'core/endpoints')) === 16, '16 endpoints watchers');
        const text = (await http(r, 'GET', '/metrics')).text;
        const perReplica = [0, 1].map((i) => Number(text.match(new RegExp(`edgeplane_replica_watchers\\{resource="core/endpoints",replica="core/endpoints@enam#${i}"\\} (\\d+)`))?.[1] ?? 0));
        expect(perReplica[0] + perReplica[1]).toBe(16);
        expect(perReplica[0]).toBeGreaterThan(0);
        expect(perReplica[1]).toBeGreaterThan(0);
        // Each user's two watches landed together: every count is even.
        expect(perReplica.map((n) => n % 2)).toEqual([0, 0]);
        for (const w of watches) w.close();
      });
    }

    it('leaves no object in a namespace deleted while creates race it', async () => {
      expect((await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: 'race' } })).status).toBe(201);
      const created: string[] = [];
      const endings: string[] = [];
      const creator = async (resource: string, id: number) => {
        for (let j = 0; ; j++) {
          const res = await http(r, 'POST', `/api/v1/namespaces/race/${resource}`, { metadata: { name: `c${id}-${j}` } });
          if (res.status !== 201) {
            endings.push(`${res.status} ${res.json.reason}`);
            return;
          }
          created.push(`${resource}/c${id}-${j}`);
        }
      };
      const creators = [0, 1, 2, 3].map((i) => creator(i % 2 ? 'secrets' : 'configmaps', i));
      await eventually(async () => created.length >= 20, '20 creates before the deletion');
      const deleted = await http(r, 'DELETE', '/api/v1/namespaces/race');
      expect(deleted.status).toBe(200);
      await Promise.all(creators);
      for (const e of endings) expect(['403 Forbidden', '404 NotFound']).toContain(e);
      expect((await http(r, 'GET', '/api/v1/namespaces/race')).status).toBe(404);
      for (const resource of ['configmaps', 'secrets']) {
        expect((await http(r, 'GET', `/api/v1/namespaces/race/${resource}`)).json.items, resource).toEqual([]);
      }
    });
  });
}
