// The front door's admission cache (worker/admission-cache.ts): entries expire after their TTL, the cache holds at
// most its byte budget (oldest out first), hands out copies, and a write to a type admission reads empties it.
import { describe, expect, it } from 'vitest';
import { AdmissionCache, admissionCache, afterWrite } from '../../worker/admission-cache';

const obj = (name: string) => ({ metadata: { name } });

describe('AdmissionCache', () => {
  it('expires entries after the TTL and hands out copies', () => {
    let now = 0;
    const cache = new AdmissionCache(1000, 1000, () => now);
    cache.set('a', [obj('x')]);
    const got = cache.get<any[]>('a')!;
    got[0].metadata.name = 'changed';
    expect(cache.get<any[]>('a')![0].metadata.name).toBe('x');
    now = 999;
    expect(cache.get('a')).toBeDefined();
    now = 1000;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toEqual({ entries: 0, bytes: 0 });
  });

  it('stays within its byte budget, dropping the oldest entries, and keeps no entry over a quarter of it', () => {
    const cache = new AdmissionCache(1000, 200, () => 0);
    for (let i = 0; i < 10; i++) cache.set(`k${i}`, obj(`o${i}`)); // 26 bytes of JSON each
    expect(cache.size.bytes).toBeLessThanOrEqual(200);
    expect(cache.get('k0')).toBeUndefined();
    expect(cache.get<any>('k9')).toEqual(obj('o9'));
    cache.set('big', obj('x'.repeat(40)));
    expect(cache.get('big')).toBeUndefined();
  });

  it('keeps the JSON text it is given, and forgets one entry on delete', () => {
    const cache = new AdmissionCache(1000, 1000, () => 0);
    cache.set('ns', obj('a'), '{"metadata":{"name":"a"},"status":{"phase":"Active"}}');
    expect(cache.get('ns')).toEqual({ metadata: { name: 'a' }, status: { phase: 'Active' } });
    cache.delete('ns');
    expect(cache.get('ns')).toBeUndefined();
    expect(cache.size).toEqual({ entries: 0, bytes: 0 });
  });

  it('shares one read among concurrent callers of a key; after clear() or delete() callers read anew', async () => {
    const cache = new AdmissionCache(1000, 1000, () => 0);
    let reads = 0;
    const read = async () => `read ${++reads}`;
    expect(await Promise.all([cache.shared('k', read), cache.shared('k', read), cache.shared('other', read)])).toEqual(['read 1', 'read 1', 'read 2']);
    expect(await cache.shared('k', read)).toBe('read 3'); // the first read is over
    const slow = cache.shared('k', () => new Promise<string>((r) => setTimeout(() => r('slow'), 10)));
    cache.clear();
    expect(await cache.shared('k', read)).toBe('read 4');
    expect(await slow).toBe('slow');
    const failing = cache.shared('f', async () => { throw new Error('no'); });
    await expect(failing).rejects.toThrow('no');
    expect(await cache.shared('f', read)).toBe('read 5');
  });

  it('is emptied by a write to a type admission reads, not by others', () => {
    admissionCache.set('list|core/limitranges|ns', []);
    afterWrite('core/configmaps');
    expect(admissionCache.get('list|core/limitranges|ns')).toBeDefined();
    afterWrite('scheduling.k8s.io/priorityclasses');
    expect(admissionCache.get('list|core/limitranges|ns')).toBeUndefined();
  });
});
