// Test helper: what the fuzzing suites share (test/e2e/fuzz.test.ts, test/e2e/fuzz-loops.test.ts): seeded batches of
// fast-check runs whose failure names the batch seed and the case compactly, the "success or a Status below 500"
// check of an answer, and the end-of-run check that every watcher's stream is complete, ordered and replays to
// today's list.
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { expect } from 'vitest';
import { http, type Running } from './fixtures';
import type { OpenWatch, WatchEventMsg } from './watch-streams';

export interface BatchOptions {
  runs: number;
  seed: number; // batch b runs with seed + b
  batch: number; // cases per fast-check run
  label?: string; // prefixed to a failure
  /** Runs after each batch (e.g. a settle period); a throw fails the run, named with the batch's seed. */
  afterBatch?: (seed: number) => Promise<void>;
}

/**
 * Runs `property` for `runs` cases in batches, each its own fast-check run seeded `seed + batch number` (the seed
 * printed on a failure reproduces that batch): a long run holds no more generated values at once than a short one.
 * FUZZ_SHRINK=1 shrinks a failure instead of stopping at it.
 */
export async function assertInBatches<T>(property: fc.IAsyncProperty<T>, o: BatchOptions): Promise<void> {
  const prefix = o.label ? `[${o.label}] ` : '';
  for (let done = 0, batch = 0; done < o.runs; done += o.batch, batch++) {
    const seed = o.seed + batch;
    await fc.assert(property, {
      numRuns: Math.min(o.batch, o.runs - done), seed, endOnFailure: process.env.FUZZ_SHRINK !== '1',
      // The property's own error describes the case compactly; fast-check's default report would print the whole
      // counterexample, which can be tens of megabytes (more than a string can hold).
      asyncReporter: async (run) => {
        if (!run.failed) return;
        const cause = run.errorInstance instanceof Error ? run.errorInstance.message : String(run.errorInstance);
        throw new Error(`${prefix}fuzz case failed (seed ${run.seed}, path "${run.counterexamplePath}", after ${run.numRuns} cases): ${cause.slice(0, 2000)}`);
      },
    });
    if (o.afterBatch) {
      try {
        await o.afterBatch(seed);
      } catch (e) {
        throw new Error(`${prefix}after the batch of seed ${seed}: ${(e as Error).message.slice(0, 2000)}`);
      }
    }
  }
}

// The one 500 kube-apiserver itself answers to a client's input: server-side apply of a configuration its schema
// cannot type (duplicate keys in a list map, undeclared fields) is a plain error in structuredmerge.go, which
// ErrorToAPIStatus (responsewriters/status.go) turns into a 500; edgeplane answers it the same
// (test/e2e/server-side-apply-crd.test.ts).
const KUBE_APPLY_500 = /^\{"kind":"Status","apiVersion":"v1","metadata":\{\},"status":"Failure","message":"failed to create typed patch object \(/;

/** Why an answer breaks "a success or a Kubernetes Status below 500" (in the encoding asked for), or undefined. */
export function answerProblem(status: number, text: string, contentType: string, what: string): string | undefined {
  if (status === 500 && KUBE_APPLY_500.test(text)) return undefined;
  if (status >= 500) return `${status} for ${what}: ${text.slice(0, 500)}`;
  if (status < 400) return undefined;
  let parsed: any;
  try {
    // A Status in the encoding the client asked for: YAML when it prefers YAML, as kube answers.
    parsed = contentType.startsWith('application/yaml') ? parseYaml(text) : JSON.parse(text);
  } catch {
    return `non-Status ${status} body for ${what}: ${text.slice(0, 200)}`;
  }
  if (parsed?.kind !== 'Status' || parsed.code !== status) return `bad Status for ${what}: ${text.slice(0, 300)}`;
  return undefined;
}

/** Keeps only what the final checks read of each received event, so thousands of cases of multi-MB objects do not
 * pile up in this process's memory. */
export function slimWatchLogs(watches: OpenWatch[]): void {
  for (const w of watches) {
    const evs = w.log.events;
    for (let i = evs.length - 1; i >= 0 && !(evs[i] as { slim?: boolean }).slim; i--) {
      const m = evs[i]!.object?.metadata ?? {};
      evs[i] = { type: evs[i]!.type, object: { metadata: { name: m.name, namespace: m.namespace, resourceVersion: m.resourceVersion } }, slim: true } as WatchEventMsg;
    }
  }
}

export function lastRv(events: WatchEventMsg[]): number {
  return Number(events.at(-1)?.object?.metadata?.resourceVersion ?? 0);
}

export interface Watched {
  path: string; // the collection watched (cluster-wide), listed again at the end
  startRv: number; // the resourceVersion the watch started from
  watch: OpenWatch;
  // The objects listed at startRv ("namespace/name" → resourceVersion): what the stream's replay starts from (e.g. the
  // kube-root-ca.crt ConfigMap the root CA publisher put in a namespace before the watch began).
  initial?: Map<string, string>;
}

/**
 * Every watcher has no ERROR event, its events are in resourceVersion order, and replaying them up to a fresh
 * list's resourceVersion gives exactly that list, over the objects `keep` selects (by "namespace/name").
 */
export async function expectWatchersConsistent(r: Running, watched: Watched[], keep: (key: string) => boolean): Promise<void> {
  for (const { path, startRv, watch, initial } of watched) {
    const list = await http(r, 'GET', path);
    const rv = Number(list.json.metadata.resourceVersion);
    const log = watch.log;
    await log.until((evs) => rv <= Math.max(startRv, lastRv(evs)), `${path} watcher to reach ${rv}`, 30_000);
    expect(log.events.filter((e) => e.type === 'ERROR'), `${path}: error events`).toEqual([]);
    const rvs = log.events.map((e) => Number(e.object.metadata.resourceVersion));
    expect(rvs.every((v, j) => j === 0 || v > rvs[j - 1]!), `${path}: events out of order`).toBe(true);
    // Replaying the stream (up to the list's revision: later writes are the next list's) over the state at the
    // watch's start gives exactly the list.
    const replayed = new Map<string, string>(initial ?? []);
    for (const e of log.events) {
      if (Number(e.object.metadata.resourceVersion) > rv) break;
      const key = `${e.object.metadata.namespace}/${e.object.metadata.name}`;
      if (e.type === 'DELETED') replayed.delete(key);
      else replayed.set(key, e.object.metadata.resourceVersion);
    }
    const expected = new Map<string, string>(list.json.items.map((o: any) => [`${o.metadata.namespace}/${o.metadata.name}`, o.metadata.resourceVersion]));
    const pick = (m: Map<string, string>) => Object.fromEntries([...m].filter(([k]) => keep(k)));
    expect(pick(replayed), `${path}: watcher state differs from the list`).toEqual(pick(expected));
  }
}
