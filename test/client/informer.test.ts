import { afterEach, describe, expect, it, vi } from 'vitest';
import { createInformer } from '../../client/informer';
import { hanging, line, scriptedFetch, statusLine, streamResponse } from './fakes';

/** Polls `cond` every few ms; fails with `what` after `timeoutMs`. */
async function until(cond: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const list = (rv: string, items: [string, string][]) => () =>
  new Response(JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: rv }, items: items.map(([name, v]) => ({ metadata: { name, namespace: 'ns', resourceVersion: v } })) }));

describe('createInformer', () => {
  it('lists, watches from the list revision, and on 410 relists and diffs', async () => {
    const fetch = scriptedFetch([
      list('10', [['a', '1'], ['b', '2'], ['c', '3']]),
      () => streamResponse([line('MODIFIED', '11', 'a'), line('DELETED', '12', 'b'), line('BOOKMARK', '15'), statusLine(410, 'Expired')]),
      list('20', [['a', '11'], ['c', '19'], ['d', '20']]),
      hanging, // the second watch stays open until stop()
    ]);
    const inf = createInformer({ server: 'http://x', path: '/api/v1/namespaces/ns/configmaps', fetch, backoff: { initialMs: 1, maxMs: 2 } });
    const calls: string[] = [];
    inf.on('add', (o) => calls.push(`add ${o.metadata.name}`));
    inf.on('update', (o, old) => calls.push(`update ${o.metadata.name} ${old.metadata.resourceVersion}->${o.metadata.resourceVersion}`));
    inf.on('delete', (o) => calls.push(`delete ${o.metadata.name}`));
    const first = inf.start();
    expect(inf.start()).toBe(first); // one run, one promise, however often it is started
    await first;
    expect(inf.hasSynced()).toBe(true);

    await until(() => fetch.urls.length >= 4, 'the informer to relist and watch again after the 410');
    expect(calls).toEqual([
      'add a', 'add b', 'add c', // first list
      'update a 1->11', 'delete b', // watch
      'add d', 'update c 3->19', // relist: d is new, c changed while expired, a is unchanged
    ]);
    expect(inf.list().map((o) => o.metadata.name).sort()).toEqual(['a', 'c', 'd']);
    expect(fetch.urls.map((u) => u.searchParams.get('resourceVersion'))).toEqual([null, '10', null, '20']);
    expect(fetch.urls[1].searchParams.get('allowWatchBookmarks')).toBe('true');
    expect(inf.resourceVersion()).toBe('20');
    await inf.stop();
  });

  it('keeps a throwing handler from stopping the others', async () => {
    const fetch = scriptedFetch([list('1', [['a', '1']]), hanging]);
    const errors: unknown[] = [];
    const inf = createInformer({ server: 'http://x', path: '/p', fetch, onError: (e) => errors.push(e) });
    const seen: string[] = [];
    inf.on('add', () => {
      throw new Error('handler bug');
    });
    inf.on('add', (o) => seen.push(o.metadata.name!));
    await inf.start();
    expect(seen).toEqual(['a']);
    expect(errors).toEqual([new Error('handler bug')]);
    await inf.stop();
  });

  it('rejects start() if stopped before the first list', async () => {
    const inf = createInformer({ server: 'http://x', path: '/p', fetch: (_u, init) => hanging(init) });
    const p = inf.start();
    await inf.stop();
    await expect(p).rejects.toThrow(/stopped/);
    expect(inf.hasSynced()).toBe(false);
  });
});

describe('resync (client-go resyncPeriod)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** An informer over `n` listed objects whose watch delivers `events`, then stays open. */
  async function started(n: number, opts: { period: number; random?: number; batch?: number }, events: string[] = []) {
    const items = Array.from({ length: n }, (_, i) => [`o${i}`, String(i + 1)] as [string, string]);
    const fetch = scriptedFetch([list('100', items), ...(events.length ? [() => streamResponse(events), hanging] : [hanging])]);
    const inf = createInformer({
      server: 'http://x', path: '/api/v1/namespaces/ns/configmaps', fetch, backoff: { initialMs: 1, maxMs: 2 },
      resyncPeriodMs: opts.period, random: () => opts.random ?? 0, resyncBatchSize: opts.batch,
    });
    const updates: { name: string; same: boolean }[] = [];
    inf.on('update', (o, old) => updates.push({ name: o.metadata.name!, same: o === old }));
    await inf.start();
    return { inf, updates };
  }

  it('re-delivers every cached object to update handlers as update(obj, obj), once per jittered period', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { inf, updates } = await started(3, { period: 60_000, random: 0.5 }); // every 90 s
    await vi.advanceTimersByTimeAsync(89_000);
    expect(updates).toEqual([]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(updates).toEqual(['o0', 'o1', 'o2'].map((name) => ({ name, same: true })));
    expect(inf.resyncs()).toBe(1);
    await vi.advanceTimersByTimeAsync(90_000);
    expect(updates).toHaveLength(6);
    expect(inf.resyncs()).toBe(2);
    await inf.stop();
    await vi.advanceTimersByTimeAsync(200_000);
    expect(updates).toHaveLength(6); // stopped: no more passes
  });

  it('re-delivers the object as cached now, and not one the watch deleted', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { inf, updates } = await started(3, { period: 1000 }, [line('MODIFIED', '200', 'o0'), line('DELETED', '201', 'o1')]);
    await vi.advanceTimersByTimeAsync(500);
    updates.length = 0; // the watch's own update of o0
    await vi.advanceTimersByTimeAsync(600);
    expect(updates.map((u) => u.name)).toEqual(['o0', 'o2']);
    expect(inf.get('ns/o0')?.metadata.resourceVersion).toBe('200');
    await inf.stop();
  });

  it('spreads a pass over turns of the event loop, never one long burst', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { inf, updates } = await started(10, { period: 10_000, batch: 3 });
    const turns: number[] = [];
    let turn = 0;
    inf.on('update', () => {
      turns.push(turn);
      if (turns.length % 3 === 1) setTimeout(() => turn++, 0); // runs between this turn and the next
    });
    await vi.advanceTimersByTimeAsync(10_000 + 1000); // the pass spreads its 4 turns over period / 10
    expect(updates).toHaveLength(10);
    expect(turns).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2, 3]);
    await inf.stop();
  });

  it('does nothing without a period', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { inf, updates } = await started(2, { period: 0 });
    await vi.advanceTimersByTimeAsync(10 * 3600_000);
    expect(updates).toEqual([]);
    expect(inf.resyncs()).toBe(0);
    await inf.stop();
  });
});
