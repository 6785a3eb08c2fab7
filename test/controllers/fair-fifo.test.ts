import { describe, expect, it } from 'vitest';
import { FairFifo, namespaceOf } from '../../controllers/fair-fifo';

describe('FairFifo', () => {
  it('is a FIFO within a lane and takes turns between lanes', () => {
    const q = new FairFifo<string>();
    for (let i = 0; i < 5; i++) q.push('flood', `flood/p${i}`);
    q.push('victim', 'victim/one');
    q.push('other', 'other/a');
    q.push('other', 'other/b');
    const out: string[] = [];
    for (let k = q.shift(); k !== undefined; k = q.shift()) out.push(k);
    expect(out).toEqual(['flood/p0', 'victim/one', 'other/a', 'flood/p1', 'other/b', 'flood/p2', 'flood/p3', 'flood/p4']);
    expect(q.size).toBe(0);
  });

  it('keeps its size and compacts a long lane as it drains', () => {
    const q = new FairFifo<number>();
    for (let i = 0; i < 10_000; i++) q.push('a', i);
    for (let i = 0; i < 9_000; i++) expect(q.shift()).toBe(i);
    expect(q.size).toBe(1_000);
    q.push('a', 10_000);
    expect(q.shift()).toBe(9_000);
  });

  it('names the lane of an informer key', () => {
    expect(namespaceOf('ns/name')).toBe('ns');
    expect(namespaceOf('node-1')).toBe('');
  });
});
