import { describe, expect, it } from 'vitest';
import { ReverseIndex } from '../../controllers/reverse-index';

describe('ReverseIndex', () => {
  it('moves a name between keys and forgets empty keys', () => {
    const ix = new ReverseIndex();
    ix.set('v1.a', 'ns/svc');
    ix.set('v2.a', 'ns/svc');
    expect([...ix.names('ns/svc')]).toEqual(['v1.a', 'v2.a']);
    ix.set('v1.a', 'ns/other');
    expect([...ix.names('ns/svc')]).toEqual(['v2.a']);
    expect([...ix.names('ns/other')]).toEqual(['v1.a']);
    ix.set('v2.a', undefined);
    ix.set('v1.a', undefined);
    expect(ix.names('ns/svc').size).toBe(0);
    expect(ix.names('ns/other').size).toBe(0);
    expect((ix as unknown as { byKey: Map<string, unknown> }).byKey.size).toBe(0);
  });
});
