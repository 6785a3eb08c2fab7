import { describe, expect, it } from 'vitest';
import { listAll } from '../../client/list';
import { ApiError } from '../../client/types';
import { scriptedFetch } from './fakes';

const page = (rv: string, names: string[], cont?: string) => () =>
  new Response(JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: rv, continue: cont }, items: names.map((name) => ({ metadata: { name, namespace: 'ns' } })) }));

describe('listAll', () => {
  it('follows continue tokens (also through an empty page) and keeps the first page\'s revision', async () => {
    const fetch = scriptedFetch([page('10', ['a', 'b'], 't1'), page('10', [], 't2'), page('10', ['c'])]);
    const r = await listAll({ server: 'http://x', path: '/api/v1/namespaces/ns/configmaps', fetch, limit: 2, labelSelector: 'x=y' });
    expect(r.resourceVersion).toBe('10');
    expect(r.items.map((i) => i.metadata.name)).toEqual(['a', 'b', 'c']);
    expect(fetch.urls.map((u) => [u.searchParams.get('limit'), u.searchParams.get('continue'), u.searchParams.get('labelSelector')])).toEqual([
      ['2', null, 'x=y'], ['2', 't1', 'x=y'], ['2', 't2', 'x=y'],
    ]);
  });

  it('gives list items the kind and apiVersion that apiservers leave off them', async () => {
    const r = await listAll({ server: 'http://x', path: '/p', fetch: scriptedFetch([page('1', ['a'])]) });
    expect(r.items[0]).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } });
  });

  it('throws ApiError with the Status on a failed page', async () => {
    const fetch = scriptedFetch([page('1', ['a'], 't'), () => new Response('{"kind":"Status","code":410,"reason":"Expired","message":"too old"}', { status: 410 })]);
    const e = await listAll({ server: 'http://x', path: '/p', fetch, limit: 1 }).catch((x) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ code: 410, status: { reason: 'Expired' } });
  });
});
