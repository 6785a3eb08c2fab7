// The console (/ui/) in a real browser: playwright-core driving Debian's /usr/bin/chromium (installed by .ci/run
// when missing; never downloaded). The six checks of the console spec, each bounded in time, asserting on the
// page's debug state (window.__edgeplane) rather than pixels; a screenshot per test goes to test-artifacts/console/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page, type WebSocketRoute } from 'playwright-core';
import { http, kubectl, startTestGateway, stopTestGateway, TOKEN, type Running } from '../e2e/fixtures';
import { HINT_COORDINATES } from '../../ui/locations';

const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'console');
let r: Running;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  // Retention of 300 events, so the compaction test can push the page's resourceVersion out of the log quickly.
  r = await startTestGateway({ vars: { ENABLE_TEST_HOOKS: 'true', EVENT_RETENTION_COUNT: '300', REPLICA_LOCATIONS: 'enam,weur,apac' } });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await stopTestGateway(r);
});

interface Opened {
  page: Page;
  errors: string[];
  sockets: WebSocketRoute[];
  block: { sockets: boolean };
  liveAfterMs: number;
}

/** Opens the console; every WebSocket goes through a route the test can cut (unless routeSockets is false), and page errors are collected. */
async function open(name: string, viewport = { width: 1280, height: 800 }, routeSockets = true): Promise<Opened> {
  const page = await browser.newPage({ viewport });
  const errors: string[] = [];
  const sockets: WebSocketRoute[] = [];
  const block = { sockets: false };
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  // A routed socket's every message is relayed through this process: the load generator's test routes none.
  if (routeSockets) {
    await page.routeWebSocket(/.*/, (ws) => {
      if (block.sockets) return ws.close({ code: 1011, reason: 'blocked by test' });
      sockets.push(ws);
      ws.connectToServer();
    });
  }
  const start = Date.now();
  await page.goto(`${r.gateway.url}/ui/#token=${encodeURIComponent(TOKEN)}`);
  await page.waitForFunction(() => {
    const s = (window as any).__edgeplane;
    return !!s && Object.values(s.feeds).every((f: any) => f.state === 'live');
  }, null, { timeout: 5000, polling: 200 }).catch(async () => {
    await page.screenshot({ path: join(ARTIFACTS, `${name}-not-live.png`) });
    throw new Error(`console not live within 5 s: ${JSON.stringify(await page.evaluate(() => (window as any).__edgeplane?.feeds))}`);
  });
  return { page, errors, sockets, block, liveAfterMs: Date.now() - start };
}

async function shot(o: Opened, name: string): Promise<void> {
  await o.page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

const state = <T>(page: Page, fn: string): Promise<T> => page.evaluate(`(${fn})((window).__edgeplane)`) as Promise<T>;

describe('console in Chromium', () => {
  it('loads with a token and is live for every type within 5 s, without page errors', async () => {
    const o = await open('live');
    await o.page.getByRole('tab', { name: 'ConfigMaps' }).click();
    await shot(o, '1-live');
    expect(o.errors).toEqual([]);
    console.log(`console live after ${o.liveAfterMs} ms`);
    await o.page.close();
  });

  it('shows a row from kubectl create within 1 s, with the resourceVersion kubectl reports', async () => {
    const o = await open('create');
    await o.page.getByRole('tab', { name: 'ConfigMaps' }).click();
    const created = await kubectl(r, ['create', 'configmap', 'from-kubectl', '--from-literal=a=1']);
    expect(created.code, created.stderr).toBe(0);
    const t0 = Date.now();
    await o.page.locator('tr[data-name="from-kubectl"]').waitFor({ timeout: 1000 });
    const rowMs = Date.now() - t0;
    const rv = (await kubectl(r, ['get', 'configmap', 'from-kubectl', '-o', 'jsonpath={.metadata.resourceVersion}'])).stdout;
    expect(await o.page.locator('tr[data-name="from-kubectl"]').getAttribute('data-rv')).toBe(rv);
    await o.page.locator(`.event-list li[data-type="ADDED"][data-name="default/from-kubectl"][data-rv="${rv}"]`).waitFor({ timeout: 1000 });
    console.log(`row shown ${rowMs} ms after kubectl returned`);
    await shot(o, '2-kubectl-row');
    expect(o.errors).toEqual([]);
    await o.page.close();
  });

  it('resumes after a replica is aborted: "resuming from RV n", then live, no duplicate rows, increasing RVs', async () => {
    const o = await open('resume');
    await o.page.getByRole('tab', { name: 'ConfigMaps' }).click();
    for (let i = 0; i < 3; i++) await http(r, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `before-${i}` } });
    await o.page.locator('tr[data-name="before-2"]').waitFor({ timeout: 2000 });
    o.block.sockets = true; // reconnects fail until released, so the resuming state is observable
    await http(r, 'POST', `/debug/replicas/${encodeURIComponent('core/configmaps@enam#0')}/abort`);
    await o.page.waitForFunction(() => /resuming from RV \d+/.test(document.querySelector('.chip[data-type="configmaps"]')?.textContent ?? ''), null, { timeout: 5000, polling: 200 });
    await shot(o, '3-resuming');
    for (let i = 0; i < 3; i++) await http(r, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `during-${i}` } });
    o.block.sockets = false;
    await o.page.waitForFunction(() => (window as any).__edgeplane.feeds.configmaps.state === 'live', null, { timeout: 10_000, polling: 200 });
    await o.page.locator('tr[data-name="during-2"]').waitFor({ timeout: 5000 });
    const rows = await state<string[]>(o.page, 's => s.rows("configmaps")');
    expect(new Set(rows).size).toBe(rows.length);
    const rvs = (await state<{ kind: string; rv: string; replica: string }[]>(o.page, 's => s.events()'))
      .filter((e) => e.kind === 'ConfigMap').map((e) => Number(e.rv)).reverse();
    expect(rvs.every((v, i) => i === 0 || v > rvs[i - 1]!), `event RVs ${rvs.join(',')}`).toBe(true);
    const feed = await state<{ reconnects: number }>(o.page, 's => s.feeds.configmaps');
    expect(feed.reconnects).toBeGreaterThan(0);
    await shot(o, '3-resumed');
    await o.page.close();
  });

  it('load generator: 50 watchers, 50 writes/s for 10 s, every watcher complete, chart and topology filled', async () => {
    const o = await open('loadgen', undefined, false);
    const before = await configmapWatchers();
    const run = state<void>(o.page, 's => s.startLoad({ watchers: 50, rate: 50, duration: 10 })');
    await expect.poll(() => state<number>(o.page, 's => s.loadgen.watchersOpen'), { timeout: 15_000, interval: 300 }).toBe(50);
    // The topology panel reads the same numbers; the running watchers show in it.
    await expect.poll(async () => (await configmapWatchers()) - before, { timeout: 15_000, interval: 500 }).toBe(50);
    // The page's topology panel shows them too (polled from the test: the page is busy with 2,500 events/s).
    await expect.poll(async () => {
      const t = await state<{ types: { resource: string; store: { watchers: number }; replicas: { watchers: number }[] }[] } | undefined>(o.page, 's => s.topology()');
      const cm = t?.types.find((x) => x.resource === 'core/configmaps');
      return cm ? cm.replicas.reduce((n, x) => n + x.watchers, 0) + cm.store.watchers : 0;
    }, { timeout: 15_000, interval: 500 }).toBeGreaterThanOrEqual(50);
    await run;
    const stats = await state<{ completeness: number; acked: number; sent: number; duplicates: number; outOfOrder: number; phases: object }>(o.page, 's => s.loadgen');
    console.log(`load generator: ${JSON.stringify(stats)}`); // phases: watchers open, writes acknowledged, drain (ms)
    expect(stats.sent).toBe(500);
    expect(stats.acked).toBe(500);
    expect(stats.duplicates + stats.outOfOrder).toBe(0);
    expect(stats.completeness).toBe(1);
    expect(await state<number>(o.page, 's => s.chartPoints()')).toBeGreaterThanOrEqual(8);
    // Bounded DOM: the event list keeps its newest 200 rows whatever the rate; the panel shows the phase times.
    expect(await o.page.locator('.event-list li').count()).toBeLessThanOrEqual(200);
    await expect.poll(() => o.page.locator('dd[data-counter="Open / write / drain"]').textContent(), { timeout: 2000 })
      .toMatch(/^\d+\.\d s \/ \d+\.\d s \/ \d+\.\d s$/);
    await shot(o, '4-loadgen');
    expect(o.errors).toEqual([]);
    await o.page.close();
  });

  it('relists after compaction passed its resourceVersion while its socket was closed', async () => {
    const o = await open('relist');
    await o.page.getByRole('tab', { name: 'ConfigMaps' }).click();
    const lists: string[] = [];
    o.page.on('request', (req) => {
      const u = new URL(req.url());
      if (u.pathname === '/api/v1/configmaps' && !u.searchParams.has('watch') && !u.searchParams.has('edgeplaneLocation')) lists.push(req.url());
    });
    o.block.sockets = true;
    for (const ws of o.sockets.splice(0)) await ws.close({ code: 1011, reason: 'cut by test' }).catch(() => undefined);
    await o.page.waitForFunction(() => (window as any).__edgeplane.feeds.configmaps.state === 'resuming', null, { timeout: 5000, polling: 200 });
    // 350 writes with a retention of 300: the page's resourceVersion is compacted away.
    for (let i = 0; i < 350; i++) {
      const name = `churn-${i % 5}`;
      const res = await http(r, 'PUT', `/api/v1/namespaces/default/configmaps/${name}`, { metadata: { name }, data: { i: String(i) } });
      if (res.status === 404) await http(r, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name }, data: { i: String(i) } });
    }
    await http(r, 'DELETE', '/api/v1/namespaces/default/configmaps/churn-0');
    o.block.sockets = false;
    await o.page.waitForFunction(() => {
      const f = (window as any).__edgeplane.feeds.configmaps;
      return f.state === 'live' && f.last410At !== undefined;
    }, null, { timeout: 15_000, polling: 200 });
    expect(lists.length).toBe(1);
    const fresh = await kubectl(r, ['get', 'configmaps', '-A', '-o', 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}{"\\n"}{end}']);
    const expected = fresh.stdout.trim().split('\n').sort();
    await expect.poll(async () => (await state<string[]>(o.page, 's => s.rows("configmaps")')).sort(), { timeout: 3000 }).toEqual(expected);
    await shot(o, '5-relisted');
    await o.page.close();
  }, 60_000);

  it('map: a dot per replica at its location, and a phone-sized layout', async () => {
    const o = await open('map');
    await o.page.waitForFunction(() => (window as any).__edgeplane.map().dots.length >= 3, null, { timeout: 5000, polling: 200 });
    const topology = await state<{ types: { replicas: { location: string; index: number }[] }[] }>(o.page, 's => s.topology()');
    const replicas = new Set(topology.types.flatMap((t) => t.replicas.map((x) => `${x.location}#${x.index}`)));
    const map = await state<{ dots: { replica: string; location: string; x: number; y: number }[] }>(o.page, 's => s.map()');
    expect(map.dots.map((d) => d.replica).sort()).toEqual([...replicas].sort());
    for (const d of map.dots) {
      const [lon, lat] = HINT_COORDINATES[d.location]!;
      const p = await o.page.evaluate(([x, y]) => (window as any).__edgeplane.map().projected(x, y), [lon, lat]);
      const nth = Number(d.replica.split('#')[1]);
      expect(Math.abs(d.x - p[0]) <= 7 * nth + 0.5 && Math.abs(d.y - p[1]) <= 4 * nth + 0.5, `${d.replica} at ${d.x},${d.y} vs ${p}`).toBe(true);
    }
    await o.page.locator('.map').screenshot({ path: join(ARTIFACTS, '6-map.png') });
    await o.page.setViewportSize({ width: 390, height: 844 });
    await o.page.getByRole('tab', { name: 'Namespaces' }).focus();
    await o.page.keyboard.press('ArrowRight');
    expect(await o.page.getByRole('tab', { name: 'Pods' }).getAttribute('aria-selected')).toBe('true');
    const overflow = await o.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await shot(o, '6-phone');
    expect(o.errors).toEqual([]);
    await o.page.close();
  });
});

async function configmapWatchers(): Promise<number> {
  const text = (await http(r, 'GET', '/metrics')).text;
  return text.split('\n').filter((l) => /^edgeplane_(replica_)?watchers\{resource="core\/configmaps"/.test(l))
    .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
}
