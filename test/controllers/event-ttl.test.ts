import { describe, expect, it } from 'vitest';
import { EventTTLSweeper, lastWritten } from '../../controllers/event-ttl';
import { parseSettings } from '../../core/settings';
import { FakeClock, FakeInformer, FakeApi } from './fakes';
import { RESOURCES } from '../../controllers/api-client';

describe('event TTL', () => {
  it('reads EVENT_TTL_SECONDS with a default of an hour (core/settings.ts), refusing non-positive values', () => {
    expect(parseSettings({}).settings.eventTtlSeconds).toBe(3600);
    expect(parseSettings({ EVENT_TTL_SECONDS: '' }).settings.eventTtlSeconds).toBe(3600);
    expect(parseSettings({ EVENT_TTL_SECONDS: '-5' }).problems).toEqual(['EVENT_TTL_SECONDS: must be between 1 and 31536000 (seconds), not -5']);
    expect(parseSettings({ EVENT_TTL_SECONDS: '90' }).settings.eventTtlSeconds).toBe(90);
  });

  it('dates an event by its newest recorder timestamp, creationTimestamp only without one', () => {
    const meta = { name: 'e', namespace: 'ns', creationTimestamp: '2026-01-01T02:00:00Z' };
    expect(lastWritten({ apiVersion: 'v1', kind: 'Event', metadata: meta, lastTimestamp: '2026-01-01T00:00:10Z', eventTime: '2026-01-01T00:00:20.000000Z' } as any)).toBe(Date.parse('2026-01-01T00:00:20Z'));
    expect(lastWritten({ apiVersion: 'v1', kind: 'Event', metadata: meta, series: { count: 2, lastObservedTime: '2026-01-01T01:00:00.000000Z' }, eventTime: '2026-01-01T00:00:00.000000Z' } as any)).toBe(Date.parse('2026-01-01T01:00:00Z'));
    expect(lastWritten({ apiVersion: 'v1', kind: 'Event', metadata: meta } as any)).toBe(Date.parse('2026-01-01T02:00:00Z'));
  });

  it('deletes expired events only, with a resourceVersion precondition', async () => {
    const clock = new FakeClock(); // 2026-01-01T00:00:00Z
    const events = new FakeInformer();
    const api = new FakeApi();
    const ev = (name: string, lastTimestamp: string) => ({ apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'ns', resourceVersion: '7' }, lastTimestamp });
    for (const e of [ev('old', '2025-12-31T22:59:59Z'), ev('fresh', '2025-12-31T23:30:00Z')]) {
      events.add(e as any);
      await api.create(RESOURCES.events, 'ns', structuredClone(e) as any);
    }
    const sweeper = new EventTTLSweeper(api, events, clock, 3600);
    expect(await sweeper.sweep()).toBe(1);
    expect(api.calls.filter((c) => c.verb === 'delete').map((c) => [c.name, c.options])).toEqual([['old', { preconditions: { resourceVersion: '7' } }]]);
  });
});
