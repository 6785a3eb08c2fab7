// Benchmark: requests through a view (core/views: events.k8s.io/v1 over the core/v1 Event store) in Node, front door
// and store logic together (the handlers under app.request against test/worker/fake-store.ts): how often the request's
// object is parsed and serialized, and CPU per request, beside core/v1 for the floor. Usage: npx tsx bench/view-path.ts
// [repo root, default this checkout] [events listed, default 2000]. Another root must hold test/worker/resource-app.ts.
const root = process.argv[2] ?? new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const n = Number(process.argv[3] ?? 2000);
const { resourceApp } = await import(`${root}/test/worker/resource-app.ts`);

const parse = JSON.parse;
const stringify = JSON.stringify;
let seen: { op: 'parse' | 'stringify'; length: number }[] | undefined;
JSON.parse = ((text: string, reviver?: (k: string, v: unknown) => unknown) => {
  seen?.push({ op: 'parse', length: text.length });
  return parse(text, reviver);
}) as typeof JSON.parse;
JSON.stringify = ((value: unknown, replacer?: never, space?: never) => {
  const out = stringify(value, replacer, space);
  seen?.push({ op: 'stringify', length: out?.length ?? 0 });
  return out;
}) as typeof JSON.stringify;

/** Parses and serializations of at least `min` characters in one run of `fn`, and its best CPU time of `runs`. */
async function measure(label: string, min: number, runs: number, fn: () => Promise<void>): Promise<void> {
  seen = [];
  await fn();
  const counted = seen;
  seen = undefined;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = process.cpuUsage();
    await fn();
    const d = process.cpuUsage(t);
    times.push((d.user + d.system) / 1000);
  }
  times.sort((a, b) => a - b);
  const count = (op: string) => counted.filter((s) => s.op === op && s.length >= min).length;
  console.log(`${label}: ${count('parse')} parses, ${count('stringify')} serializations of the object(s); CPU ${times[0].toFixed(2)} ms best, ${times[times.length >> 1].toFixed(2)} ms median of ${runs}`);
}

const app = resourceApp();
app.storeOf('core/namespaces').seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } });
const now = '2026-01-01T00:00:00.000000Z';
let made = 0;
const event = () => stringify({
  apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: `web.${made++}` }, eventTime: now, reason: 'Checked',
  note: 'checked by a bench '.repeat(10), type: 'Normal', action: 'Check', reportingController: 'bench.example.com/writer',
  reportingInstance: 'writer-1', regarding: { kind: 'Deployment', name: 'web', namespace: 'ns', apiVersion: 'apps/v1' },
});
const size = event().length;
const create = async () => {
  const res = await app.request('POST', '/apis/events.k8s.io/v1/namespaces/ns/events', event());
  if (res.status !== 201) throw new Error(await res.text());
};
await measure('events.k8s.io/v1 create', size >> 1, 200, create);
while (made < n) await create();
const list = (path: string) => async () => {
  const res = await app.request('GET', path);
  if (res.status !== 200) throw new Error(await res.text());
  await res.text();
};
const listed = `${made} events`;
await measure(`events.k8s.io/v1 list of ${listed}`, (size * made) >> 1, 20, list('/apis/events.k8s.io/v1/namespaces/ns/events'));
await measure(`core/v1 list of ${listed} (no view)`, (size * made) >> 1, 20, list('/api/v1/namespaces/ns/events'));
await measure('events.k8s.io/v1 get', size >> 1, 200, list('/apis/events.k8s.io/v1/namespaces/ns/events/web.1'));
