// Tooling: regenerates docs/console.png, the README's picture of the console under load: a fresh gateway, a small
// Deployment, the console in Debian's Chromium at 1280×800 with its load generator running (40 watchers, 40 writes/s).
// Usage: npx tsx scripts/console-screenshot.ts

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startGateway } from './gateway';
import { ROOT } from './build';

const token = 'screenshot-admin-token-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'edgeplane-shot-'));
const gateway = await startGateway({ port: 0, persistDir: dir, adminToken: token, vars: { CONTROLLERS: 'on' } });
const api = (method: string, path: string, body: unknown) => fetch(gateway.url + path, {
  method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
});
const labels = { app: 'web' };
await api('POST', '/apis/apps/v1/namespaces/default/deployments', {
  metadata: { name: 'web' }, spec: { replicas: 3, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
});
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${gateway.url}/ui/#token=${token}`);
  await page.waitForFunction(() => Object.values((globalThis as any).__edgeplane?.feeds ?? { x: { state: '' } }).every((f: any) => f.state === 'live'), null, { timeout: 15_000, polling: 200 });
  await page.getByRole('tab', { name: 'Pods' }).click();
  void page.evaluate(() => (globalThis as any).__edgeplane.startLoad({ watchers: 40, rate: 40, duration: 20 }));
  await page.waitForTimeout(6000);
  await page.screenshot({ path: join(ROOT, 'docs', 'console.png') });
  console.log('wrote docs/console.png');
} finally {
  await browser.close();
  await gateway.stop();
  rmSync(dir, { recursive: true, force: true });
}
