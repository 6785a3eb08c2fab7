// @kubernetes/client-node's informer (makeInformer over HTTPS with the written kubeconfig) against the real
// gateway: its cache stays equal to the server across writes, server-side stream ends and 410 relists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api, KubeConfig, ListWatch, makeInformer, Watch, type KubernetesObject, type V1ConfigMap } from '@kubernetes/client-node';
import { http, startTestGateway, stopTestGateway, type Running } from './fixtures';

const RETENTION = 20;
const NS = 'cn';
const FILLER_NS = 'cn-filler';
const PATH = `/api/v1/namespaces/${NS}/configmaps`;

let r: Running;
let informer: ListWatch<V1ConfigMap> | undefined;
beforeAll(async () => {
  r = await startTestGateway({
    vars: {
      EVENT_RETENTION_COUNT: String(RETENTION),
      // client-node sends no timeoutSeconds, so the server picks [min, 2*min): this makes it end every
      // watch within 1-2 s, where kube-apiserver's default would be 30-60 min.
      WATCH_MIN_TIMEOUT_SECONDS: '1',
    },
  });
});
afterAll(async () => {
  await informer?.stop();
  await stopTestGateway(r);
});

async function ok(p: Promise<{ status: number; text: string }>, ...expected: number[]) {
  const res = await p;
  if (!expected.includes(res.status)) throw new Error(`unexpected ${res.status}: ${res.text}`);
}
const cms = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const createNs = (ns: string) => ok(http(r, 'POST', '/api/v1/namespaces', { metadata: { name: ns } }), 201);
const createCm = (ns: string, name: string) => ok(http(r, 'POST', cms(ns), { metadata: { name }, data: { v: '0' } }), 201);
const updateCm = (ns: string, name: string) =>
  ok(http(r, 'PATCH', `${cms(ns)}/${name}`, { data: { v: String(Math.random()) } }, { 'content-type': 'application/merge-patch+json' }), 200);
const deleteCm = (ns: string, name: string) => ok(http(r, 'DELETE', `${cms(ns)}/${name}`), 200);

/** What equality means here: the list call deserializes (dates become Date), watch events stay raw JSON. */
type Row = { name: string; resourceVersion: string; data: unknown };
const rows = (objs: Iterable<KubernetesObject & { data?: unknown }>): Row[] =>
  [...objs]
    .map((o) => ({ name: o.metadata!.name!, resourceVersion: o.metadata!.resourceVersion!, data: o.data }))
    .sort((a, b) => a.name.localeCompare(b.name));

async function serverRows(): Promise<Row[]> {
  const res = await http(r, 'GET', PATH);
  expect(res.status).toBe(200);
  return rows(res.json.items);
}

async function waitUntil(cond: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('@kubernetes/client-node informer', () => {
  const mirror = new Map<string, Row>(); // rebuilt from add/update/delete callbacks only
  const calls = { add: [] as string[], update: [] as string[], delete: [] as string[] };
  const errors: unknown[] = [];
  let connects = 0;
  let lists = 0;
  let watchesDone = 0;

  const inSync = async (what: string) => {
    const expected = await serverRows();
    await waitUntil(
      () => JSON.stringify(rows(informer!.list(NS))) === JSON.stringify(expected),
      `the client-node cache to equal the server list (${what}); cache: ${JSON.stringify(rows(informer!.list(NS)).map((x) => x.name))}`,
    );
    expect([...mirror.values()].sort((a, b) => a.name.localeCompare(b.name))).toEqual(expected);
  };
  const resetCalls = () => {
    calls.add = [];
    calls.update = [];
    calls.delete = [];
  };

  it('lists and then follows creates, updates and deletes', async () => {
    await createNs(NS);
    await createNs(FILLER_NS);
    await createCm(FILLER_NS, 'filler');
    for (const name of ['a', 'b', 'c']) await createCm(NS, name);

    const kc = new KubeConfig();
    kc.loadFromFile(r.kubeconfig); // https, with certificate-authority-data: client-node builds its agent from it
    const api = kc.makeApiClient(CoreV1Api);
    const made = makeInformer(kc, PATH, async () => {
      const list = await api.listNamespacedConfigMap({ namespace: NS });
      lists++; // counted when it returns: the informer applies it right after, before any timer runs
      return list;
    });
    // makeInformer's declared type leaves out latestResourceVersion(), which the ListWatch it builds has.
    expect(made).toBeInstanceOf(ListWatch);
    informer = made as ListWatch<V1ConfigMap>;
    // Instrumentation only: count the Watch's done callbacks, so the test can tell when a stopped watch
    // has been wound down (client-node has no event for it).
    const watcher = (informer as unknown as { watch: Watch }).watch;
    const watchOnce = watcher.watch.bind(watcher);
    watcher.watch = (path, query, callback, done) => watchOnce(path, query, callback, (err) => {
      watchesDone++;
      done(err);
    });
    const record = (verb: keyof typeof calls) => (o: V1ConfigMap) => {
      calls[verb].push(o.metadata!.name!);
      if (verb === 'delete') mirror.delete(o.metadata!.name!);
      else mirror.set(o.metadata!.name!, rows([o])[0]);
    };
    informer.on('add', record('add'));
    informer.on('update', record('update'));
    informer.on('delete', record('delete'));
    informer.on('connect', () => connects++);
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    await inSync('initial list');
    expect(calls.add.sort()).toEqual(['a', 'b', 'c']);

    resetCalls();
    await createCm(NS, 'd');
    await updateCm(NS, 'a');
    await deleteCm(NS, 'b');
    await inSync('after writes');
    expect(calls).toEqual({ add: ['d'], update: ['a'], delete: ['b'] });
    expect(errors).toEqual([]);
  });

  it('resumes after the server ends its watches, without relisting', async () => {
    const listsBefore = lists;
    for (let round = 0; round < 3; round++) {
      const seen = connects;
      await createCm(NS, `round-${round}`);
      await updateCm(NS, 'c');
      // A 'connect' is each (re)start of the watch after the previous stream ended.
      await waitUntil(() => connects > seen, `reconnect #${seen + 1} after the server ended the stream`);
    }
    await inSync('after stream ends');
    expect(lists).toBe(listsBefore);
    expect(errors).toEqual([]);
  });

  it('relists when a quiet watch resumes from a resourceVersion the server no longer has', async () => {
    // client-node asks for no bookmarks, so while only other namespaces change its resourceVersion ages;
    // the next reconnect gets the 410 ERROR event and the informer lists again.
    const listsBefore = lists;
    const rvBefore = informer!.latestResourceVersion();
    for (let i = 0; i <= RETENTION; i++) await updateCm(FILLER_NS, 'filler');
    const probe = await http(r, 'GET', `${PATH}?watch=true&resourceVersion=${rvBefore}`);
    expect(probe.json, 'premise: the quiet resourceVersion is expired').toMatchObject({ type: 'ERROR', object: { code: 410 } });
    await waitUntil(() => lists > listsBefore, 'a relist after the 410');
    expect(informer!.latestResourceVersion()).not.toBe('');
    await inSync('after the quiet relist');
    expect(Number(informer!.latestResourceVersion())).toBeGreaterThan(Number(rvBefore));
    expect(errors).toEqual([]);
  });

  it('relists after being stopped past the retention, firing handlers for what it missed', async () => {
    const done = watchesDone;
    await informer!.stop();
    // stop() aborts the request; wait for that abort to come back through the done callback, or it could
    // land after start() below and abort the new watch instead.
    await waitUntil(() => watchesDone > done, 'the stopped watch to wind down');
    // Depending on where the stream was, client-node reports the abort as an error or ends quietly.
    expect(errors.every((e) => (e as Error).name === 'AbortError'), String(errors)).toBe(true);
    errors.length = 0;
    const staleRv = informer!.latestResourceVersion();
    resetCalls();
    await deleteCm(NS, 'c');
    await updateCm(NS, 'a');
    await createCm(NS, 'e');
    for (let i = 0; i <= RETENTION; i++) await updateCm(FILLER_NS, 'filler');
    const probe = await http(r, 'GET', `${PATH}?watch=true&resourceVersion=${staleRv}`);
    expect(probe.json, 'premise: the stale resourceVersion is expired').toMatchObject({ type: 'ERROR', object: { code: 410 } });

    const listsBefore = lists;
    await informer!.start(); // watches from staleRv, gets the 410, lists again
    await waitUntil(() => lists > listsBefore, 'a relist after the 410');
    await inSync('after the relist');
    expect(calls).toEqual({ add: ['e'], update: ['a'], delete: ['c'] });

    // And it keeps following from the new list.
    const listsAfter = lists;
    await createCm(NS, 'f');
    await deleteCm(NS, 'd');
    await inSync('after the relist, more writes');
    expect(lists).toBe(listsAfter);
    expect(errors).toEqual([]);
  });
});
