// Robustness, the bounded run (issue 21): seeded traffic against the real gateway — CRUD with every patch type and
// precondition, lists at every resourceVersion mode with pages, watches over HTTP and WebSocket at the store and at
// replicas, informers and a status controller — while every failpoint caused from outside fires at least once
// (SIGKILL and restart of the runtime, a deploy-style restart, store and replica aborts, held replica pushes,
// stalled watchers, clients hanging up mid-body and mid-stream, compaction racing watchers). The whole history is
// checked: linearizability per object, the revision rules, every list against the replayed history, the six watch
// guarantees for every session, every watcher back within 10 s of a restart, and the control loops' end states.
// On failure the history is written under test-artifacts/robustness/ and the smallest violating sub-histories are
// printed. ROBUSTNESS_SEED replays a run; `npm run robustness -- --minutes N --seed S --faults a,b` runs long ones.
import { describe, expect, it } from 'vitest';
import { OUTSIDE, workerdPids } from '../../robustness/run/failpoints';
import { runRobustness } from '../../robustness/run/run';
import { http, startTestGateway, stopTestGateway } from './fixtures';
import { wsWatch } from './watch-streams';

const SEED = Number(process.env.ROBUSTNESS_SEED ?? 20261201);

describe('robustness under every outside failpoint', () => {
  it('keeps linearizability, the watch guarantees and the control loops\' end states', async () => {
    const result = await runRobustness({ seed: SEED, durationMs: 40_000, faults: OUTSIDE, controllers: true });
    expect(new Set(result.history.faults!.map((f) => f.name))).toEqual(new Set(OUTSIDE));
    expect(result.history.ops.filter((o) => o.note === 'body cut mid-request').length).toBeGreaterThan(0);
    expect(result.history.ops.filter((o) => !Number.isFinite(o.ret)).length).toBeGreaterThan(0); // the faults cost some answers
    expect(result.explanation ?? '', `history: ${result.historyFile}`).toBe('');
    expect(result.violations).toEqual([]);
    expect(result.unknown).toEqual([]);
  }, 180_000);
});

// Finding 1 of robustness/README.md: WebSocket watchers that answer each event with "ping" (the runtime's
// auto-response answers "pong") and hang up without a close frame crash the whole runtime within seconds. Off until
// fixed (it would take the rest of the suite's gateway down with it); ROBUSTNESS_WS_PING=1 runs it.
describe.skipIf(!process.env.ROBUSTNESS_WS_PING)('WebSocket watchers that ping and hang up', () => {
  it('never crash the runtime', async () => {
    const r = await startTestGateway({ vars: { REPLICA_LOCATIONS: 'enam' } });
    try {
      const path = '/api/v1/namespaces/default/configmaps';
      let writing = true;
      let written = 0;
      const writers = Array.from({ length: 4 }, async (_, j) => {
        for (let i = 0; writing; i++) {
          expect((await http(r, 'POST', path, { metadata: { name: `w${j}-${i}` }, data: { x: 'y'.repeat(200) } })).status).toBe(201);
          written++;
        }
      });
      const churners = Array.from({ length: 3 }, async (_, j) => {
        for (let i = 0; i < 60; i++) {
          const w = await wsWatch(r, `${path}?watch=true&resourceVersion=${Math.max(1, written - 30)}`, { ping: true, headers: { 'x-edgeplane-location': j ? 'enam' : 'store' } });
          await new Promise((res) => setTimeout(res, 100 + ((i * 37) % 400)));
          w.close(); // ws.terminate(): no close frame
        }
      });
      await Promise.all(churners);
      writing = false;
      await Promise.all(writers);
      expect(workerdPids().length).toBeGreaterThan(0);
    } finally {
      await stopTestGateway(r);
    }
  }, 120_000);
});
