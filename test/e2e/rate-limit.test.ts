// Per-user rate limits: a noisy user gets 429 with Retry-After while another user's requests go through;
// system:masters is exempt, as kube-apiserver's flow control exempts it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestGateway, stopTestGateway, type Running } from './fixtures';

let r: Running;
beforeAll(async () => {
  r = await startTestGateway({
    vars: { STATIC_TOKENS: 'noisy-token,noisy,uid-n\nquiet-token,quiet,uid-q', RATE_LIMIT_QPS: '5', RATE_LIMIT_BURST: '10' },
  });
  await http(r, 'POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: 'readers' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'User', name: 'noisy' }, { kind: 'User', name: 'quiet' }],
  });
});
afterAll(() => stopTestGateway(r));

const as = (token: string) => http(r, 'GET', '/api/v1/namespaces/default/configmaps', undefined, { authorization: `Bearer ${token}` });

describe('rate limits', () => {
  it('answers a noisy user with 429 and Retry-After while another user goes through', async () => {
    const results = await Promise.all(Array.from({ length: 30 }, () => as('noisy-token')));
    const limited = results.filter((x) => x.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(results.filter((x) => x.status === 200).length).toBeGreaterThanOrEqual(10);
    expect(Number(limited[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited[0].json).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429 });
    expect((await as('quiet-token')).status).toBe(200);
  });

  it('does not limit system:masters', async () => {
    const results = await Promise.all(Array.from({ length: 30 }, () => http(r, 'GET', '/api/v1/namespaces/default/configmaps')));
    expect(results.every((x) => x.status === 200)).toBe(true);
  });
});
