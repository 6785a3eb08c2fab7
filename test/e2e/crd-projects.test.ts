// Real projects' CRDs through the real gateway and /usr/bin/kubectl (vendor/<project>/, each with its
// NOTICE): every CRD applies client-side and server-side as on kube (a CRD whose last-applied annotation
// would pass kube's 256 KiB limit is refused client-side with kube's message), and each project's
// objects are judged as kube judges them — the expectations come from the projects' own tests where
// they have them (Gateway API's tests/cel), else from kube's rules for the schema at hand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { http, kubectl, startTestGateway, stopTestGateway, waitFor, type Running } from './fixtures';

const VENDOR = join(__dirname, '..', '..', 'vendor');

interface CrdDoc {
  metadata: { name: string };
  spec: { group: string; scope: string; names: { plural: string; kind: string }; versions: { name: string; served: boolean; storage: boolean }[] };
}

interface Case {
  test: string;
  apiVersion?: string;
  kind: string;
  namespace?: string;
  metadata?: Record<string, unknown>;
  spec?: unknown;
  /** A whole object body instead of spec (kinds without one). */
  body?: Record<string, unknown>;
  status?: unknown;
  update?: unknown;
  /** Substrings the refusal's message must contain (either wording of kube's "longer"/"more"). */
  wantErrors?: string[];
  /** The refusal's exact message, where kube's is known. */
  wantMessage?: string;
  /** An accepted object's fields after defaulting: [dotted path, value]. */
  wantFields?: [string, unknown][];
  /** Refused, whatever the message (a project's invalid example without an expected message). */
  invalid?: boolean;
}

function crdFiles(project: string, sub = ''): string[] {
  const dir = join(VENDOR, project, sub);
  return readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== 'cel-cases.yaml' && f !== 'cases.yaml').map((f) => join(dir, f));
}

function docs(file: string): CrdDoc[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS()).filter((d) => d?.kind === 'CustomResourceDefinition');
}

function cases(project: string, file: string): Case[] {
  const path = join(VENDOR, project, file);
  if (!file.endsWith('.yaml')) return readdirSync(path).sort().flatMap((f) => examples(join(path, f), f));
  return (parseAllDocuments(readFileSync(path, 'utf8'))[0].toJS() as { cases: Case[] }).cases;
}

// Where kube-apiserver differs from the harness a project's examples were written for.
const EXAMPLE_OVERRIDES: Record<string, { note: string; body?: Record<string, unknown>; wantErrors?: string[] }> = {
  // go-yaml v2 (kubectl, sigs.k8s.io/yaml) reads the flow scalar `001:db8::]` as a string; the yaml package
  // reads a key. The object as kubectl sends it:
  'serviceentry-valid.yaml[0] full': {
    note: 'YAML flow scalar',
    body: { spec: { hosts: ['example.com'], workloadSelector: { labels: { foo: 'bar' } }, addresses: ['1.2.3.4', '001:db8::'], exportTo: ['foo', '.'], location: 'MESH_EXTERNAL', ports: [{ name: 'foo', protocol: 'HTTP', number: 1234, targetPort: 2345 }], subjectAltNames: ['sa'], resolution: 'DNS' } },
  },
  // kube-apiserver drops a null in a non-nullable field without a default before validating
  // (apiextensions defaulting/prunenulls.go); Istio's offline validator does not, and expects a type error.
  'wasm-invalid.yaml[11] nil': { note: 'null pruned', wantErrors: ['spec: Required value'] },
  'wasm-invalid.yaml[12] nested-nil': { note: 'null pruned', wantErrors: ['spec.url: Required value'] },
};

// A project's own example objects (Istio's validation testdata): `*-invalid.yaml` holds refused ones, each
// with `_err`, a substring of the expected error.
function examples(file: string, name: string): Case[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS()).filter(Boolean).map((doc, i): Case => {
    const { _err, apiVersion, kind, metadata, ...rest } = doc as Record<string, any>;
    const invalid = name.includes('-invalid');
    const test = `${name}[${i}] ${metadata?.name ?? ''}`;
    const override = EXAMPLE_OVERRIDES[test];
    return {
      test, apiVersion, kind, metadata: { ...metadata, name: undefined, namespace: undefined }, body: override?.body ?? rest,
      namespace: metadata?.namespace, invalid, wantErrors: override?.wantErrors ?? (invalid && _err ? [String(_err)] : undefined),
    };
  });
}

// The vendored projects: the CRD folders applied (in this order) and their cases (a file, or a folder of examples).
const PROJECTS: { name: string; dirs: string[]; cases: string }[] = [
  { name: 'gateway-api', dirs: ['standard'], cases: 'cel-cases.yaml' },
  { name: 'istio', dirs: [''], cases: 'testdata' },
  { name: 'cert-manager', dirs: [''], cases: 'cases.yaml' },
  { name: 'flux', dirs: ['source-controller', 'kustomize-controller'], cases: 'cases.yaml' },
  { name: 'crossplane', dirs: [''], cases: 'cases.yaml' },
  { name: 'knative-serving', dirs: [''], cases: 'cases.yaml' },
  { name: 'tekton', dirs: [''], cases: 'cases.yaml' },
  { name: 'kyverno', dirs: [''], cases: 'cases.yaml' },
  { name: 'prometheus-operator', dirs: [''], cases: 'cases.yaml' },
];

let r: Running;
const kinds = new Map<string, { group: string; version: string; plural: string; namespaced: boolean }>();

beforeAll(async () => {
  r = await startTestGateway();
  for (const p of PROJECTS) {
    for (const dir of p.dirs) {
      for (const file of crdFiles(p.name, dir)) {
        for (const crd of docs(file)) {
          const version = crd.spec.versions.find((v) => v.storage)!.name;
          const t = { group: crd.spec.group, version, plural: crd.spec.names.plural, namespaced: crd.spec.scope === 'Namespaced' };
          kinds.set(`${p.name}/${crd.spec.group}/${crd.spec.names.kind}`, t);
          if (!kinds.has(`${p.name}/${crd.spec.names.kind}`)) kinds.set(`${p.name}/${crd.spec.names.kind}`, t);
        }
      }
    }
  }
}, 120_000);
afterAll(() => stopTestGateway(r));

async function established(name: string): Promise<void> {
  await waitFor(`${name} Established`, async () => {
    const crd = await http(r, 'GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    return crd.json?.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True') ? true : undefined;
  }, 20_000);
}

describe.each(PROJECTS)('$name CRDs', (p) => {
  const files = p.dirs.flatMap((d) => crdFiles(p.name, d));

  it('apply client-side (kubectl apply -f), then server-side (--server-side) without a change', async () => {
    for (const file of files) {
      const out = await kubectl(r, ['apply', '-f', file]);
      expect(out.stderr, file).toBe('');
      expect(out.code, file).toBe(0);
      for (const crd of docs(file)) expect(out.stdout).toContain(`customresourcedefinition.apiextensions.k8s.io/${crd.metadata.name} created`);
    }
    for (const file of files) {
      const out = await kubectl(r, ['apply', '--server-side', '-f', file]);
      expect(out.stderr, file).toBe('');
      expect(out.code, file).toBe(0);
      for (const crd of docs(file)) expect(out.stdout).toContain(`customresourcedefinition.apiextensions.k8s.io/${crd.metadata.name} serverside-applied`);
    }
    for (const file of files) for (const crd of docs(file)) await established(crd.metadata.name);
  }, 240_000);

  it.each(cases(p.name, p.cases))('$test', async (c) => {
    // A kind two groups of one project define (Kyverno's PolicyException) is told apart by apiVersion.
    const t = kinds.get(c.apiVersion?.includes('/') ? `${p.name}/${c.apiVersion.split('/')[0]}/${c.kind}` : `${p.name}/${c.kind}`)!;
    const apiVersion = c.apiVersion ?? `${t.group}/${t.version}`;
    const version = apiVersion.split('/')[1];
    const namespace = c.namespace ?? 'default';
    const base = `/apis/${t.group}/${version}${t.namespaced ? `/namespaces/${namespace}` : ''}/${t.plural}`;
    const name = `c-${Math.random().toString(36).slice(2, 10)}`;
    const body = { apiVersion, kind: c.kind, ...c.body, metadata: { ...c.metadata, name }, ...(c.spec === undefined ? {} : { spec: c.spec }) };
    // As kubectl sends it: unknown fields refused, not pruned with a warning.
    let res = await http(r, 'POST', `${base}?fieldValidation=Strict`, body);
    if (c.status !== undefined || c.update !== undefined) {
      expect(res.status, res.text).toBe(201);
      const created = res.json;
      res = c.status !== undefined
        ? await http(r, 'PUT', `${base}/${name}/status`, { ...created, status: c.status })
        : await http(r, 'PUT', `${base}/${name}`, { ...created, spec: c.update });
    }
    const wanted = c.wantErrors ?? [];
    if (!wanted.length && c.wantMessage === undefined && !c.invalid) {
      expect(res.status, res.text).toBeLessThan(300);
      for (const [path, value] of c.wantFields ?? []) {
        expect(path.split('.').reduce<any>((o, k) => o?.[k], res.json), path).toEqual(value);
      }
      return;
    }
    expect([400, 422], res.text).toContain(res.status);
    if (c.wantMessage !== undefined) expect(res.json.message).toBe(c.wantMessage);
    // Gateway API's celErrorStringMatches: kube 1.32 words a few limits "longer" where older ones said "more".
    for (const w of wanted) expect([w, w.replaceAll('more', 'longer')].some((x) => res.json.message.includes(x)), `${res.json.message}\nlacks ${w}`).toBe(true);
  }, 30_000);
});

describe('Gateway API', () => {
  it('shows a new Gateway\'s status from the schema\'s defaults ("Waiting for controller"), in GET, LIST, WATCH and kubectl', async () => {
    const gw = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'waiting' }, spec: { gatewayClassName: 'foo', listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }] } };
    const watch = fetch(`${r.gateway.url}/apis/gateway.networking.k8s.io/v1/namespaces/default/gateways?watch=true&fieldSelector=metadata.name%3Dwaiting&timeoutSeconds=5`, { headers: { authorization: `Bearer ${(await import('./fixtures')).TOKEN}` } });
    const created = await http(r, 'POST', '/apis/gateway.networking.k8s.io/v1/namespaces/default/gateways', gw);
    expect(created.status).toBe(201);
    const pending = (type: string) => ({ type, status: 'Unknown', reason: 'Pending', message: 'Waiting for controller', lastTransitionTime: '1970-01-01T00:00:00Z' });
    expect(created.json.status).toEqual({ conditions: [pending('Accepted'), pending('Programmed')] });
    expect((await http(r, 'GET', '/apis/gateway.networking.k8s.io/v1/namespaces/default/gateways/waiting')).json.status.conditions).toHaveLength(2);
    const list = await http(r, 'GET', '/apis/gateway.networking.k8s.io/v1/namespaces/default/gateways?fieldSelector=metadata.name%3Dwaiting');
    expect(list.json.items[0].status.conditions[1]).toEqual(pending('Programmed'));
    const event = JSON.parse((await (await watch).text()).split('\n')[0]);
    expect(event.type).toBe('ADDED');
    expect(event.object.status.conditions[0]).toEqual(pending('Accepted'));
    const get = await kubectl(r, ['get', 'gateway', 'waiting', '-n', 'default']);
    expect(get.stdout).toMatch(/^NAME\s+CLASS\s+ADDRESS\s+PROGRAMMED\s+AGE\nwaiting\s+foo\s+Unknown\s+\d+s\n$/);
  }, 30_000);

  it('the experimental HTTPRoute CRD: refused client-side (its annotation would pass 256 KiB), applied server-side', async () => {
    const file = join(VENDOR, 'gateway-api', 'experimental', 'gateway.networking.k8s.io_httproutes.yaml');
    const csa = await kubectl(r, ['apply', '-f', file]);
    expect(csa.code).toBe(1);
    expect(csa.stderr).toContain('The CustomResourceDefinition "httproutes.gateway.networking.k8s.io" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes');
    const ssa = await kubectl(r, ['apply', '--server-side', '--force-conflicts', '-f', file]);
    expect(ssa.stderr).toBe('');
    expect(ssa.stdout).toContain('customresourcedefinition.apiextensions.k8s.io/httproutes.gateway.networking.k8s.io serverside-applied');
    const crd = await http(r, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/httproutes.gateway.networking.k8s.io');
    expect(crd.json.metadata.annotations['gateway.networking.k8s.io/channel']).toBe('experimental');
    for (const f of crdFiles('gateway-api', 'experimental').filter((x) => !x.endsWith('_httproutes.yaml'))) {
      const out = await kubectl(r, ['apply', '-f', f]);
      expect(out.stderr, f).toBe('');
      expect(out.code, f).toBe(0);
    }
  }, 120_000);

  it('kubectl explain through /openapi/v2 (plaintext-openapiv2) and v3', async () => {
    const v2 = await kubectl(r, ['explain', 'httproutes.spec.rules.matches.path', '--output=plaintext-openapiv2']);
    expect(v2.stderr).toBe('');
    expect(v2.stdout).toContain('KIND:     HTTPRoute');
    expect(v2.stdout).toContain('RESOURCE: path <Object>');
    expect(v2.stdout).toMatch(/FIELDS:\n   type\t<string>\n/);
    const v3 = await kubectl(r, ['explain', 'gateways.spec.listeners']);
    expect(v3.stderr).toBe('');
    expect(v3.stdout).toMatch(/FIELD: listeners <\[\]Object>/);
  }, 60_000);

  it('kubectl validates a List of Gateway API objects client-side against /openapi/v2', async () => {
    const list = {
      apiVersion: 'v1', kind: 'List',
      items: [{ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name: 'listed' }, spec: { controllerName: 'example.net/x', bogusField: 1 } }],
    };
    const out = await kubectl(r, ['apply', '--validate=true', '-f', '-'], JSON.stringify(list));
    expect(out.code).toBe(1);
    expect(out.stderr).toBe('error: error validating "STDIN": error validating data: ValidationError(GatewayClass.spec): unknown field "bogusField" in io.k8s.networking.gateway.v1.GatewayClass.spec; if you choose to ignore these errors, turn validation off with --validate=false\n');
  }, 60_000);
});

describe('defaults on read', () => {
  it('a default added to the schema later shows on objects already stored, without a write', async () => {
    const crd = (withDefault: boolean) => ({
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'lamps.read.example.com' },
      spec: {
        group: 'read.example.com', scope: 'Namespaced', names: { plural: 'lamps', kind: 'Lamp' },
        versions: [{
          name: 'v1', served: true, storage: true, subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string', ...(withDefault ? { default: 'white' } : {}) }, watts: { type: 'integer' } } } } } },
        }],
      },
    });
    expect((await http(r, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd(false))).status).toBe(201);
    await established('lamps.read.example.com');
    const base = '/apis/read.example.com/v1/namespaces/default/lamps';
    const created = await http(r, 'POST', base, { apiVersion: 'read.example.com/v1', kind: 'Lamp', metadata: { name: 'desk' }, spec: { watts: 40 } });
    expect(created.json.spec).toEqual({ watts: 40 });
    const current = (await http(r, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/lamps.read.example.com')).json;
    const updated = await http(r, 'PUT', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/lamps.read.example.com', { ...crd(true), metadata: current.metadata });
    expect(updated.status).toBe(200);
    const got = await waitFor('the new default on read', async () => {
      const res = await http(r, 'GET', `${base}/desk`);
      return res.json.spec.color ? res.json : undefined;
    }, 20_000);
    expect(got.spec).toEqual({ watts: 40, color: 'white' });
    expect(got.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion);
    const list = await http(r, 'GET', base);
    expect(list.json.items[0].spec.color).toBe('white');
  }, 60_000);
});
