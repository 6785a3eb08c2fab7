// The failpoint schedule and registry: every enabled fault gets its turn inside the run, the same seed gives the
// same schedule, and every failpoint can be enabled by its name.
import { describe, expect, it } from 'vitest';
import { FAILPOINTS, failpoint, OUTSIDE, schedule } from '../../robustness/run/failpoints';
import { Rng } from '../../robustness/run/rng';

describe('failpoint schedule', () => {
  const enabled = OUTSIDE.map(failpoint);

  it('fires every moment fault once in a short run, between warm-up and cool-down, and opens every window', () => {
    const plan = schedule(enabled, 40_000, new Rng(1));
    const moments = enabled.filter((f) => f.kind === 'moment').map((f) => f.name).sort();
    expect(plan.moments.map((m) => m.f.name).sort()).toEqual(moments);
    for (const m of plan.moments) expect(m.at > 4000 && m.at < 36_000).toBe(true);
    expect(plan.moments.map((m) => m.at)).toEqual([...plan.moments.map((m) => m.at)].sort((a, b) => a - b));
    expect(plan.windows.map((w) => w.f.name).sort()).toEqual(['client.disconnect', 'watch.stall']);
    for (const w of plan.windows) expect(w.from >= 4000 && w.to <= 36_000 && w.to > w.from).toBe(true);
  });

  it('keeps one moment fault every ~20 s in a long run, each as often as the others', () => {
    const plan = schedule(enabled, 10 * 60_000, new Rng(2));
    expect(plan.moments.length).toBe(29);
    const counts = new Map<string, number>();
    for (const m of plan.moments) counts.set(m.f.name, (counts.get(m.f.name) ?? 0) + 1);
    expect(Math.max(...counts.values()) - Math.min(...counts.values())).toBeLessThanOrEqual(1);
  });

  it('is the same for the same seed, and empty without faults', () => {
    const names = (s: ReturnType<typeof schedule>) => s.moments.map((m) => `${m.f.name}@${m.at.toFixed(3)}`);
    expect(names(schedule(enabled, 60_000, new Rng(7)))).toEqual(names(schedule(enabled, 60_000, new Rng(7))));
    expect(names(schedule(enabled, 60_000, new Rng(7)))).not.toEqual(names(schedule(enabled, 60_000, new Rng(8))));
    expect(schedule([], 30_000, new Rng(1))).toEqual({ moments: [], windows: [] });
  });

  it('names every failpoint once, each with its injection, and refuses unknown ones', () => {
    expect(new Set(FAILPOINTS.map((f) => f.name)).size).toBe(FAILPOINTS.length);
    for (const f of FAILPOINTS) expect(f.kind === 'moment' ? f.inject : true, f.name).toBeDefined();
    for (const name of ['hibernation.wake', 'clock.skew', 'informer.drop-event']) expect(failpoint(name).inject, name).toBeDefined();
    expect(() => failpoint('nope')).toThrow(/unknown failpoint/);
  });
});
