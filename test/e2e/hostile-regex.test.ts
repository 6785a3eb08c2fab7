// Regular expressions on request data run in linear time (issue 18, class 2), through the real gateway: a
// cluster admin defines a CRD with an ordinary dotted-name `pattern` and CEL rules using matches(), one
// with a pattern the object itself supplies; a limited tenant (`edit` in its own namespace, plus write
// access to that custom resource, which kube grants through the edit role's aggregation) writes values
// that make a backtracking engine take exponential time, and patterns whose automaton is huge. A
// concurrent victim's requests must keep succeeding within max(1.5 s, 25× their median). Each attack's
// time to be refused is printed: JavaScript's RegExp took 1.95 s (pattern) and 6.6 s (CEL) for the
// 27-character value, doubling per character. Patterns Go's regexp refuses are refused at CRD write
// with kube's messages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestGateway, stopTestGateway, type Running } from './fixtures';
import { as, limitedTenant, Victim, type Tenant } from './hostile';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const DOTTED = '^([a-z0-9]+[-.]?)*[a-z0-9]$';
// Sizes of the adversarial values: REGEX_SIZES=27 measures the old engine without waiting for ever.
const SIZES = (process.env.REGEX_SIZES ?? '27,1000,100000').split(',').map(Number);

let r: Running;
let attacker: Tenant;
let victim: Victim;
const hosts = () => `/apis/regex.example.com/v1/namespaces/${attacker.namespace}/hosts`;

function crd(name: string, plural: string, spec: Record<string, unknown>) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.regex.example.com` },
    spec: {
      group: 'regex.example.com', scope: 'Namespaced',
      names: { plural, singular: name, kind: name[0].toUpperCase() + name.slice(1) },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }],
    },
  };
}

beforeAll(async () => {
  r = await startTestGateway();
  const made = await http(r, 'POST', CRDS, crd('host', 'hosts', {
    type: 'object',
    properties: {
      name: { type: 'string', pattern: DOTTED },
      label: { type: 'string' },
      re: { type: 'string' },
      subject: { type: 'string' },
    },
    'x-kubernetes-validations': [
      { rule: `!has(self.label) || self.label.matches('${DOTTED}')`, message: 'label must be a dotted name' },
      { rule: '!has(self.re) || !has(self.subject) || !self.subject.matches(self.re)', message: 'subject matches re' },
    ],
  }));
  expect(made.status, made.text).toBe(201);
  attacker = await limitedTenant(r, 'attacker');
  // Write access to the custom resource in its namespace, as the aggregated edit role gives in kube.
  const RBAC = '/apis/rbac.authorization.k8s.io/v1/namespaces/attacker';
  expect((await http(r, 'POST', `${RBAC}/roles`, { metadata: { name: 'hosts' }, rules: [{ apiGroups: ['regex.example.com'], resources: ['hosts'], verbs: ['*'] }] })).status).toBe(201);
  expect((await http(r, 'POST', `${RBAC}/rolebindings`, {
    metadata: { name: 'hosts' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'hosts' },
    subjects: [{ kind: 'ServiceAccount', name: 'tenant', namespace: 'attacker' }],
  })).status).toBe(201);
  // The type is served once the CRD is Established.
  for (let i = 0; i < 100; i++) {
    if ((await as(r, attacker, 'GET', hosts())).status === 200) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  victim = await Victim.create(r);
  await victim.baseline();
}, 180_000);
afterAll(() => stopTestGateway(r));

/** POSTs a host as the attacker; returns the reply and how long it took. */
async function write(spec: Record<string, unknown>, n: number) {
  const t0 = performance.now();
  const res = await as(r, attacker, 'POST', hosts(), { metadata: { name: `h${n}` }, spec }, {}, 120_000);
  return { res, ms: performance.now() - t0 };
}

describe('regular expressions on request data (issue 18, class 2)', () => {
  it('refuses adversarial values for a CRD pattern and a CEL matches() in linear time, the victim unaffected', async () => {
    let n = 0;
    const { result, report } = await victim.during('regex: adversarial values', async () => {
      const times: string[] = [];
      for (const size of SIZES) {
        const value = 'a'.repeat(size - 1) + '!';
        const byPattern = await write({ name: value }, n++);
        expect(byPattern.res.status, byPattern.res.text).toBe(422);
        expect(byPattern.res.json.details.causes).toEqual([{
          reason: 'FieldValueInvalid', field: 'spec.name',
          message: `Invalid value: "${value}": spec.name in body should match '${DOTTED}'`,
        }]);
        const byCel = await write({ label: value }, n++);
        expect(byCel.res.status, byCel.res.text).toBe(422);
        expect(byCel.res.json.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": label must be a dotted name' }]);
        times.push(`${size} chars: pattern ${byPattern.ms.toFixed(0)} ms, CEL ${byCel.ms.toFixed(0)} ms`);
      }
      return times;
    });
    console.log(`[regex] time to refuse: ${result.join('; ')}`);
    expect(report.failures).toEqual([]);
  }, 600_000);

  it('bounds a pattern the object supplies: a huge automaton on a long subject is refused by budget, not run', async () => {
    const { result, report } = await victim.during('regex: object-supplied patterns', async () => {
      const out: string[] = [];
      // A 1,000-state automaton on 100,000 characters: ~10^8 steps; kube's CEL cost counts only 16 characters of
      // pattern. Refused as the write's budget runs out.
      const subject = 'ab'.repeat(50_000);
      const huge = await write({ re: '[ab]*a[ab]{999}c', subject }, 100);
      expect(huge.res.status, huge.res.text).toBe(422);
      expect(huge.res.json.details.causes).toEqual([{
        reason: 'FieldValueInvalid', field: 'spec',
        message: 'Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run',
      }]);
      out.push(`[ab]*a[ab]{999}c on 100000 chars: ${huge.ms.toFixed(0)} ms`);
      // Go's syntax, not JavaScript's: a backreference does not compile, evaluated at run time.
      const backref = await write({ re: '(a)\\1', subject: 'aa' }, 101);
      expect(backref.res.status, backref.res.text).toBe(422);
      expect(backref.res.json.details.causes[0].message).toBe(
        'Invalid value: "object": error parsing regexp: invalid escape sequence: `\\1` evaluating rule: subject matches re');
      // A pattern compiling to more than 10,000 instructions is not built.
      const large = await write({ re: 'a{1000}'.repeat(30), subject: 'x' }, 102);
      expect(large.res.status, large.res.text).toBe(422);
      expect(large.res.json.details.causes[0].message).toContain('error parsing regexp: expression too large');
      out.push(`a{1000}×30: ${large.ms.toFixed(0)} ms`);
      // Just under the budget, two at once: a 105-instruction automaton on 36,000 characters of random a/b that
      // defeats the DFA cache, ~3.8 million units each: run, and bounded.
      let seed = 7;
      const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
      const chars = Array.from({ length: 36_000 }, () => (rnd() < 0.5 ? 'a' : 'b'));
      chars[36_000 - 100] = 'b'; // no match: the whole subject is scanned
      const near = chars.join('');
      const t0 = performance.now();
      const parallel = await Promise.all([0, 1].map((i) => write({ re: '[ab]*a[ab]{99}c', subject: `${near}c` }, 110 + i)));
      for (const p of parallel) expect(p.res.status, p.res.text).toBe(201);
      out.push(`2 × [ab]*a[ab]{99}c on 36000 chars at once: ${(performance.now() - t0).toFixed(0)} ms`);
      // An ordinary pattern on a long subject is fine.
      const fine = await write({ re: '^[ab]+c$', subject }, 103);
      expect(fine.res.status, fine.res.text).toBe(201);
      out.push(`^[ab]+c$ on 100000 chars: ${fine.ms.toFixed(0)} ms`);
      return out;
    });
    console.log(`[regex] ${result.join('; ')}`);
    expect(report.failures).toEqual([]);
  }, 600_000);

  it('refuses at CRD write the patterns and CEL regexes Go\'s regexp does not compile, with kube\'s messages', async () => {
    const res = await http(r, 'POST', CRDS, crd('bad', 'bads', {
      type: 'object',
      properties: {
        lookahead: { type: 'string', pattern: '^(?=a)b' },
        backref: { type: 'string', pattern: '(a)\\1' },
        possessive: { type: 'string', pattern: 'a++' },
        dotted: { type: 'string', pattern: DOTTED },
      },
      'x-kubernetes-validations': [{ rule: "self.dotted.matches('x**')" }, { rule: "self.dotted.find('(') == ''" }],
    }));
    expect(res.status, res.text).toBe(422);
    const messages = res.json.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);
    const at = 'spec.validation.openAPIV3Schema.properties[spec]';
    expect(messages).toEqual(expect.arrayContaining([
      `${at}.properties[backref].pattern: Invalid value: "(a)\\\\1": must be a valid regular expression, but isn't: error parsing regexp: invalid escape sequence: \`\\1\``,
      `${at}.properties[lookahead].pattern: Invalid value: "^(?=a)b": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: \`(?=\``,
      `${at}.properties[possessive].pattern: Invalid value: "a++": must be a valid regular expression, but isn't: error parsing regexp: invalid nested repetition operator: \`++\``,
    ]));
    expect(messages.find((m: string) => m.startsWith(`${at}.x-kubernetes-validations[0].rule`))).toContain(
      "compilation failed: ERROR: <input>:1:21: invalid matches argument\n | self.dotted.matches('x**')\n | ....................^");
    expect(messages.find((m: string) => m.startsWith(`${at}.x-kubernetes-validations[1].rule`))).toContain(
      'program instantiation failed: error parsing regexp: missing closing ): `(`');
  });
});
