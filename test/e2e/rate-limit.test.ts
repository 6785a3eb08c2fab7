// Per-user rate limits: past its bucket a noisy user's requests wait for their tokens up to RATE_LIMIT_MAX_DELAY_MS
// (1.5 s) and beyond that get 429 with Retry-After — held back as long, so a client that retries at once cannot
// loop on the gateway — while another user's requests go through; system:masters is exempt, as kube-apiserver's flow
// control exempts it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestGateway, stopTestGateway, type Running } from './fixtures';

let r: Running;
beforeAll(async () => {
  r = await startTestGateway({
    vars: { STATIC_TOKENS: 'noisy-token,noisy,uid-n\nquiet-token,quiet,uid-q\nheld-token,held,uid-h', RATE_LIMIT_QPS: '5', RATE_LIMIT_BURST: '10' },
  });
  await http(r, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: 'readers' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'User', name: 'noisy' }, { kind: 'User', name: 'quiet' }, { kind: 'User', name: 'held' }],
  });
});
afterAll(() => stopTestGateway(r));

const as = (token: string) => http(r, 'GET', '/api/v1/namespaces/default/configmaps', undefined, { authorization: `Bearer ${token}` });

describe('rate limits', () => {
  it('answers a noisy user with 429 and Retry-After while another user goes through', async () => {
    const t0 = performance.now();
    const results = await Promise.all(Array.from({ length: 30 }, async () => ({ ...(await as('noisy-token')), at: performance.now() - t0 })));
    const limited = results.filter((x) => x.status === 429);
    const served = results.filter((x) => x.status === 200);
    // 5 per second, 10 at once: 10 served now, the next 7 tokens (due within 1.5 s) waited for, the rest refused.
    expect(served.length).toBeGreaterThanOrEqual(17);
    expect(limited.length).toBeGreaterThan(0);
    expect(served.filter((x) => x.at >= 150).length).toBeGreaterThanOrEqual(5);
    expect(Math.min(...limited.map((x) => x.at))).toBeGreaterThanOrEqual(1400);
    expect(Number(limited[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited[0].json).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429 });
    expect((await as('quiet-token')).status).toBe(200);
  });

  it('holds a request waiting for its token, or its 429, without a flow-control seat', async () => {
    const gauge = (text: string, series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
    let answered = 0;
    const all = Promise.all(Array.from({ length: 30 }, () => as('held-token').then((x) => (answered++, x))));
    // The burst of 10 is served; of the other 20, 7 wait for tokens (200 ms to 1.4 s) and 13 hold their 429 for 1.5 s.
    // Look when every request not yet answered is waiting: then none may hold a seat or a queue place.
    let seen: string | undefined;
    while (!seen && answered < 30) {
      const before = answered;
      const text = (await http(r, 'GET', '/metrics')).text;
      const waiting = gauge(text, 'edgeplane_rate_limit_waiting_requests');
      if (waiting > 0 && before === answered && before + waiting === 30) seen = text;
    }
    const results = await all;
    expect(seen, 'every unanswered request seen waiting at once').toBeDefined();
    expect(gauge(seen!, 'apiserver_flowcontrol_current_executing_requests{flow_schema="global-default",priority_level="global-default"}')).toBe(0);
    expect(gauge(seen!, 'apiserver_flowcontrol_current_inqueue_requests{flow_schema="global-default",priority_level="global-default"}')).toBe(0);
    expect(results.filter((x) => x.status === 200).length).toBeGreaterThanOrEqual(17);
    expect(results.filter((x) => x.status === 429).length).toBeGreaterThan(0);
  });

  it('does not limit system:masters', async () => {
    const results = await Promise.all(Array.from({ length: 30 }, () => http(r, 'GET', '/api/v1/namespaces/default/configmaps')));
    expect(results.every((x) => x.status === 200)).toBe(true);
  });
});
