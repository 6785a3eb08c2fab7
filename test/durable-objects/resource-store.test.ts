// The canonical store in workerd: revisions, log/state agreement, compaction and conflicts,
// driven through the real Worker entry.
import { describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { api, configMap } from './api';

const CM = '/api/v1/namespaces/default/configmaps';

function configMapStore() {
  return env.STORE.get(env.STORE.idFromName('core/configmaps'));
}

describe('ResourceStore revisions', () => {
  it('gives every write a strictly greater revision, and a list the newest one', async () => {
    const rvs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await api('POST', CM, configMap(`rev-${i}`, { i: String(i) }));
      expect(r.status).toBe(201);
      rvs.push(Number(r.json.metadata.resourceVersion));
    }
    const upd = await api('PUT', `${CM}/rev-1`, configMap('rev-1', { i: 'changed' }));
    expect(upd.status).toBe(200);
    rvs.push(Number(upd.json.metadata.resourceVersion));
    const del = await api('DELETE', `${CM}/rev-2`);
    expect(del.status).toBe(200);
    const list = await api('GET', CM);
    rvs.push(Number(list.json.metadata.resourceVersion));
    for (let i = 1; i < rvs.length; i++) expect(rvs[i]).toBeGreaterThan(rvs[i - 1]);
    expect(list.json.items.map((o: { metadata: { name: string } }) => o.metadata.name)).not.toContain('rev-2');
  });

  it('does not spend a revision on a no-op update', async () => {
    const created = await api('POST', CM, configMap('noop', { a: '1' }));
    const again = await api('PUT', `${CM}/noop`, configMap('noop', { a: '1' }));
    expect(again.status).toBe(200);
    expect(again.json.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion);
  });
});

describe('ResourceStore log and state', () => {
  it('keeps the objects table equal to the last event of every key, also after failed writes', async () => {
    await api('POST', CM, configMap('agree-a', { v: '1' }));
    await api('POST', CM, configMap('agree-b', { v: '1' }));
    const stale = (await api('GET', `${CM}/agree-a`)).json.metadata.resourceVersion;
    await api('PUT', `${CM}/agree-a`, configMap('agree-a', { v: '2' }));
    const conflict = await api('PUT', `${CM}/agree-a`, { ...configMap('agree-a', { v: '3' }), metadata: { name: 'agree-a', resourceVersion: stale } });
    expect(conflict.status).toBe(409);
    expect((await api('POST', CM, configMap('agree-b'))).status).toBe(409);
    expect((await api('POST', CM, '{"bad json')).status).toBe(400);
    await api('DELETE', `${CM}/agree-b`);

    await runInDurableObject(configMapStore(), (_instance, state) => {
      const sql = state.storage.sql;
      const objects = new Map(sql.exec<{ key: string; revision: number; value: string }>('SELECT key, revision, value FROM objects').toArray().map((r) => [r.key, r]));
      const lastEvents = sql.exec<{ key: string; type: string; revision: number; value: string }>(
        'SELECT e.key, e.type, e.revision, e.value FROM events e JOIN (SELECT key, max(revision) AS r FROM events GROUP BY key) m ON e.key = m.key AND e.revision = m.r',
      ).toArray();
      for (const ev of lastEvents) {
        const obj = objects.get(ev.key);
        if (ev.type === 'DELETED') {
          expect(obj).toBeUndefined();
        } else {
          expect(obj?.value).toBe(ev.value);
          expect(obj?.revision).toBe(ev.revision);
          expect(JSON.parse(ev.value).metadata.resourceVersion).toBe(String(ev.revision));
        }
      }
      const counter = sql.exec<{ value: number }>("SELECT value FROM meta WHERE name = 'revision'").one().value;
      const maxEvent = sql.exec<{ r: number }>('SELECT max(revision) AS r FROM events').one().r;
      expect(counter).toBe(maxEvent);
      expect(objects.get('default/agree-a') && JSON.parse(objects.get('default/agree-a')!.value).data).toEqual({ v: '2' });
    });
  });
});

describe('ResourceStore group commit', () => {
  it('gives writes sent together their own revisions and answers; a failing one is rolled back alone', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `gc-${i}`);
    const sent = [
      ...names.map((n) => api('POST', CM, configMap(n, { n }))),
      ...[1, 2, 3].map(() => api('POST', CM, configMap('gc-dup', { v: 'x' }))),
      api('POST', CM, '{"bad json'),
    ];
    const answers = await Promise.all(sent);
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(names.length + 1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(2);
    expect(answers.at(-1)!.status).toBe(400);
    const rvs = created.map((a) => Number(a.json.metadata.resourceVersion));
    expect(new Set(rvs).size).toBe(rvs.length);
    // Every answer is what a read gives back, and the log holds one event per create, at its revision.
    for (const a of created) {
      const read = await api('GET', `${CM}/${a.json.metadata.name}`);
      expect(read.json).toEqual(a.json);
    }
    await runInDurableObject(configMapStore(), (instance, state) => {
      const rows = state.storage.sql.exec<{ key: string; revision: number }>(
        `SELECT key, revision FROM events WHERE key IN (${[...names, 'gc-dup'].map(() => '?').join(',')})`, ...[...names, 'gc-dup'].map((n) => `default/${n}`),
      ).toArray();
      expect(rows.map((r) => r.revision).sort((a, b) => a - b)).toEqual([...rvs].sort((a, b) => a - b));
      const commits = (instance as unknown as { commits: { batches: number } }).commits;
      expect(commits.batches).toBeGreaterThan(0);
    });
  });
});

describe('ResourceStore conflicts', () => {
  it('answers a stale PUT with 409 Conflict and kube-apiserver\'s message', async () => {
    const created = await api('POST', CM, configMap('stale', { v: '1' }));
    await api('PUT', `${CM}/stale`, configMap('stale', { v: '2' }));
    const r = await api('PUT', `${CM}/stale`, {
      ...configMap('stale', { v: '3' }),
      metadata: { name: 'stale', resourceVersion: created.json.metadata.resourceVersion },
    });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({
      kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409,
      message: 'Operation cannot be fulfilled on configmaps "stale": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: 'stale', kind: 'configmaps' },
    });
    expect((await api('GET', `${CM}/stale`)).json.data).toEqual({ v: '2' });
  });

  it('answers a create of an existing name with 409 AlreadyExists', async () => {
    await api('POST', CM, configMap('twice'));
    const r = await api('POST', CM, configMap('twice'));
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({ reason: 'AlreadyExists', message: 'configmaps "twice" already exists' });
  });

  it('rejects a delete whose uid precondition does not match', async () => {
    await api('POST', CM, configMap('precond'));
    const r = await api('DELETE', `${CM}/precond`, { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'nope' } });
    expect(r.status).toBe(409);
    expect(r.json.message).toMatch(/^Operation cannot be fulfilled on ConfigMap "precond": the UID in the precondition \(nope\) does not match/);
    expect((await api('GET', `${CM}/precond`)).status).toBe(200);
  });
});

describe('ResourceStore compaction', () => {
  // vitest.workers.config.mts keeps only 50 events per type.
  it('answers an Exact list and a continue token from before compaction with 410 Expired', async () => {
    for (let i = 0; i < 3; i++) await api('POST', CM, configMap(`page-${i}`));
    const first = await api('GET', `${CM}?limit=1`);
    expect(first.json.metadata.continue).toBeTruthy();
    const early = first.json.metadata.resourceVersion;
    const exactBefore = await api('GET', `${CM}?resourceVersion=${early}&resourceVersionMatch=Exact`);
    expect(exactBefore.status).toBe(200);

    for (let i = 0; i < 60; i++) await api('PUT', `${CM}/page-0`, configMap('page-0', { i: String(i) }));

    const exact = await api('GET', `${CM}?resourceVersion=${early}&resourceVersionMatch=Exact`);
    expect(exact.status).toBe(410);
    expect(exact.json).toMatchObject({ reason: 'Expired', message: 'The resourceVersion for the provided list is too old.' });

    const cont = await api('GET', `${CM}?limit=1&continue=${encodeURIComponent(first.json.metadata.continue)}`);
    expect(cont.status).toBe(410);
    expect(cont.json.reason).toBe('Expired');
    expect(cont.json.metadata.continue).toBeTruthy();
    const fresh = await api('GET', `${CM}?limit=100&continue=${encodeURIComponent(cont.json.metadata.continue)}`);
    expect(fresh.status).toBe(200);
    expect(fresh.json.items.length).toBeGreaterThan(0);
  });

  it('serves a continue token at its own revision, not the newest state', async () => {
    await api('POST', CM, configMap('snap-a', { v: 'old' }));
    await api('POST', CM, configMap('snap-b', { v: 'old' }));
    const all = (await api('GET', CM)).json.items.map((o: { metadata: { name: string } }) => o.metadata.name);
    const idx = all.indexOf('snap-a');
    const firstPage = await api('GET', `${CM}?limit=${idx + 1}`);
    expect(firstPage.json.items.at(-1).metadata.name).toBe('snap-a');
    await api('PUT', `${CM}/snap-b`, configMap('snap-b', { v: 'new' }));
    await api('POST', CM, configMap('snap-c'));
    const rest = await api('GET', `${CM}?limit=500&continue=${encodeURIComponent(firstPage.json.metadata.continue)}`);
    expect(rest.json.metadata.resourceVersion).toBe(firstPage.json.metadata.resourceVersion);
    const b = rest.json.items.find((o: { metadata: { name: string } }) => o.metadata.name === 'snap-b');
    expect(b.data).toEqual({ v: 'old' });
    expect(rest.json.items.map((o: { metadata: { name: string } }) => o.metadata.name)).not.toContain('snap-c');
  });
});

describe('ResourceStore large objects', () => {
  it('updates an object near the size limit (its event and previous value exceed one 2 MB SQLite row together)', async () => {
    const big = (c: string) => configMap('big', { v: c.repeat(1_000_000) });
    expect((await api('POST', CM, big('a'))).status).toBe(201);
    const updated = await api('PUT', `${CM}/big`, big('b'));
    expect(updated.status, updated.text.slice(0, 300)).toBe(200);
    // The log still answers with both values: an Exact list before the update sees the old one.
    const before = Number(updated.json.metadata.resourceVersion) - 1;
    const exact = await api('GET', `${CM}?resourceVersion=${before}&resourceVersionMatch=Exact&fieldSelector=metadata.name%3Dbig`);
    expect(exact.status).toBe(200);
    expect(exact.json.items[0].data.v[0]).toBe('a');
  });

  it('counts an object\'s size in UTF-8 bytes', async () => {
    // 700,000 characters, 2.1 MB of UTF-8: within the 3 MiB body limit, over the 1.5 MiB object limit.
    const res = await api('POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'wide' }, spec: { containers: [{ name: 'c', image: 'nginx', env: [{ name: 'V', value: '€'.repeat(700_000) }] }] },
    });
    expect(res.status).toBe(413);
    expect(res.json.reason).toBe('RequestEntityTooLarge');
    // A dry run is measured as the commit would measure it (durable-objects/store-writes.ts).
    const dry = await api('POST', '/api/v1/namespaces/default/pods?dryRun=All', {
      metadata: { name: 'wide' }, spec: { containers: [{ name: 'c', image: 'nginx', env: [{ name: 'V', value: '€'.repeat(700_000) }] }] },
    });
    expect(dry.status).toBe(413);
  });
});
