// Benchmark: CPU time per create through executeWrite (the store's write logic) with an in-memory store: the part of a create
// that decoding, validation, defaulting and managed fields add to. Usage: npx tsx bench/write-path.ts [repo root, default this checkout] [n]. Pass another checkout to compare (e.g. a
// worktree at an older commit): CPU time is less disturbed by other load on the machine than wall time.
const root = process.argv[2] ?? new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const n = Number(process.argv[3] ?? 4000);
// core/writes/ since the writes were split by verb; core/writes.ts before.
const { executeWrite } = await import(`${root}/core/writes/index.ts`).catch(() => import(`${root}/core/writes.ts`));
const { lookupGroupResource } = await import(`${root}/core/registry.ts`);
const { podJson } = await import(`${root}/bench/lib/objects.ts`);
const type = lookupGroupResource('core/pods');
function run(count: number, tag: string): number {
  const saved = new Map<string, unknown>();
  let rv = 0;
  const store = {
    get: (k: string) => (saved.has(k) ? JSON.parse(saved.get(k) as string) : undefined),
    objects: () => [],
    commit: (_t: string, k: string, o: any) => { o.metadata.resourceVersion = String(++rv); saved.set(k, JSON.stringify(o)); return o; },
  };
  const env = { type, now: Date.now(), newUid: () => crypto.randomUUID(), randomSuffix: () => 'abcde', warnings: [] as string[] };
  const t = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const name = `p-${tag}-${i}`;
    const res = executeWrite(store as any, env as any, { verb: 'create', namespace: 'bench', body: podJson('bench', name), userAgent: 'kubectl/v1.32.0' } as any);
    if (res.code !== 201) throw new Error(JSON.stringify(res.body).slice(0, 300));
  }
  const d = process.cpuUsage(t);
  return (d.user + d.system) / count; // µs per create
}
run(1000, 'warm');
const samples = [run(n, 'a'), run(n, 'b'), run(n, 'c')].sort((a, b) => a - b);
console.log(`${root}: ${samples[0]!.toFixed(1)} µs CPU per create (best of 3 × ${n}), bytes ${podJson('bench', 'x').length}`);
