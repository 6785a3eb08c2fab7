// Benchmark: CPU time per create of Gateway API objects (HTTPRoute, Gateway) through executeWrite with an in-memory
// store — decoding, pruning, defaulting, OpenAPI and CEL validation of a real CRD (vendor/gateway-api, v1.6.1) — and,
// where the checkout has it, the cost of defaults on read (core/crd/read-defaults.ts) per stored revision.
// Usage: npx tsx bench/crd-write-path.ts [repo root, default this checkout] [n]. Pass another checkout to compare
// (e.g. a worktree of main); the CRDs are always read from this checkout's vendor/.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

const here = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const root = process.argv[2] ?? here;
const n = Number(process.argv[3] ?? 2000);
const { executeWrite } = await import(`${root}/core/writes.ts`);
const { setCustomTypes } = await import(`${root}/core/registry.ts`);
const { typesFromCrd } = await import(`${root}/core/crd/custom-types.ts`);
const readDefaults = await import(`${root}/core/crd/read-defaults.ts`).catch(() => undefined);

function crd(file: string) {
  const doc = parseAllDocuments(readFileSync(`${here}/vendor/gateway-api/standard/${file}`, 'utf8'))[0].toJS();
  doc.metadata.uid = file;
  doc.metadata.resourceVersion = '1';
  doc.status = { acceptedNames: doc.spec.names, conditions: [{ type: 'Established', status: 'True' }] };
  return doc;
}
const types = [...typesFromCrd(crd('gateway.networking.k8s.io_httproutes.yaml')), ...typesFromCrd(crd('gateway.networking.k8s.io_gateways.yaml'))];
setCustomTypes(types);
const httproute = types.find((t: any) => t.kind === 'HTTPRoute' && t.version === 'v1');
const gateway = types.find((t: any) => t.kind === 'Gateway' && t.version === 'v1');

const routeBody = (name: string) => JSON.stringify({
  apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name, namespace: 'bench' },
  spec: {
    parentRefs: [{ name: 'gw' }], hostnames: ['shop.example.com'],
    rules: [
      { matches: [{ path: { type: 'PathPrefix', value: '/cart' } }], filters: [{ type: 'URLRewrite', urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/' } } }], backendRefs: [{ name: 'cart', port: 8080 }] },
      { matches: [{ path: { type: 'Exact', value: '/login' }, headers: [{ name: 'x-canary', value: 'true' }] }], backendRefs: [{ name: 'login-canary', port: 8080, weight: 10 }, { name: 'login', port: 8080, weight: 90 }] },
    ],
  },
});
const gatewayBody = (name: string) => JSON.stringify({
  apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name, namespace: 'bench' },
  spec: { gatewayClassName: 'example', listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }, { name: 'https', protocol: 'HTTPS', port: 443, hostname: 'shop.example.com', tls: { certificateRefs: [{ name: 'shop-tls' }] } }], addresses: [{ type: 'IPAddress', value: '10.0.0.1' }] },
});

function run(type: any, body: (name: string) => string, count: number, tag: string): { us: number; stored: string[] } {
  const saved = new Map<string, string>();
  let rv = 0;
  const store = {
    get: (k: string) => (saved.has(k) ? JSON.parse(saved.get(k)!) : undefined),
    objects: () => [],
    commit: (_t: string, k: string, o: any) => { o.metadata.resourceVersion = String(++rv); saved.set(k, JSON.stringify(o)); return o; },
  };
  const env = { type, now: Date.now(), newUid: () => crypto.randomUUID(), randomSuffix: () => 'abcde', warnings: [] as string[] };
  const t = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const res = executeWrite(store as any, env as any, { verb: 'create', namespace: 'bench', body: body(`o-${tag}-${i}`), userAgent: 'kubectl/v1.32.0' } as any);
    if (res.code !== 201) throw new Error(JSON.stringify(res.body).slice(0, 400));
  }
  const d = process.cpuUsage(t);
  return { us: (d.user + d.system) / count, stored: [...saved.values()] };
}

for (const [label, type, body] of [['HTTPRoute', httproute, routeBody], ['Gateway', gateway, gatewayBody]] as const) {
  run(type, body, 300, 'warm');
  const samples = [run(type, body, n, 'a'), run(type, body, n, 'b'), run(type, body, n, 'c')].sort((a, b) => a.us - b.us);
  console.log(`${root}: ${label} ${samples[0]!.us.toFixed(1)} µs CPU per create (best of 3 × ${n}), ${body('x').length} bytes`);
  const defaulter = readDefaults?.readDefaulter(type);
  if (!defaulter) continue;
  // What a store does per stored revision: parse (done anyway), default, and re-serialize when something was added.
  const stored = samples[0]!.stored;
  const measure = (fn: (json: string) => void) => {
    const t = process.cpuUsage();
    for (const json of stored) fn(json);
    const d = process.cpuUsage(t);
    return (d.user + d.system) / stored.length;
  };
  const parseOnly = Math.min(...[0, 1, 2].map(() => measure((json) => JSON.parse(json))));
  const withDefaults = Math.min(...[0, 1, 2].map(() => measure((json) => {
    const obj = JSON.parse(json);
    if (defaulter(obj)) JSON.stringify(obj);
  })));
  console.log(`${root}: ${label} read: ${parseOnly.toFixed(1)} µs to parse a stored revision, ${withDefaults.toFixed(1)} µs with defaults on read (+${(withDefaults - parseOnly).toFixed(1)} µs)`);
}
