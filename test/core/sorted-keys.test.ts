// core/sorted-keys.ts against a plain sorted array: the same order, ranks and iteration after many random inserts
// and deletes across chunk splits, and iteration that sees keys added or removed after its position.
import { describe, expect, it } from 'vitest';
import { SortedKeys } from '../../core/sorted-keys';

function lowerBound(a: string[], k: string): number {
  let i = 0;
  while (i < a.length && a[i]! < k) i++;
  return i;
}

describe('SortedKeys', () => {
  it('matches a sorted array through random inserts and deletes', () => {
    let seed = 7; // mulberry32
    const rand = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) % n;
    };
    const keys = new SortedKeys();
    const model: string[] = [];
    for (let step = 0; step < 6000; step++) {
      const key = `ns-${rand(5)}/p-${rand(3000)}`;
      const at = model.indexOf(key);
      if (rand(4) === 0) {
        keys.delete(key);
        if (at >= 0) model.splice(at, 1);
      } else if (at < 0) {
        keys.insert(key);
        model.splice(lowerBound(model, key), 0, key);
      }
      if (step % 500 === 0 || step === 5999) {
        expect(keys.size).toBe(model.length);
        expect([...keys.from('')]).toEqual(model);
        for (const probe of ['', 'ns-2/', 'ns-2/p-1500', 'ns-4/p-9', 'z', key]) {
          expect(keys.rank(probe)).toBe(lowerBound(model, probe));
          expect([...keys.from(probe)]).toEqual(model.slice(lowerBound(model, probe)));
        }
      }
    }
    expect(model.length).toBeGreaterThan(2000); // several chunks of 512
    keys.delete('absent');
    expect(keys.size).toBe(model.length);
  });

  it('iterates on after changes: later keys added are seen, removed ones are not, nothing twice', () => {
    const keys = new SortedKeys();
    for (let i = 0; i < 2000; i++) keys.insert(`k${String(i).padStart(5, '0')}`);
    const seen: string[] = [];
    for (const k of keys.from('k00100')) {
      seen.push(k);
      if (k === 'k00200') {
        keys.insert('k00150x'); // before the position: not seen
        keys.insert('k00250x'); // after it: seen
        keys.delete('k00300');
        for (let i = 0; i < 600; i++) keys.delete(`k${String(1000 + i).padStart(5, '0')}`);
      }
    }
    expect(seen).not.toContain('k00150x');
    expect(seen).toContain('k00250x');
    expect(seen).not.toContain('k00300');
    expect(seen).not.toContain('k01000');
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort());
    expect(seen.length).toBe(2000 - 100 - 1 - 600 + 1);
  });
});
