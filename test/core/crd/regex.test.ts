// Regular expressions in CRDs (issue 18, class 2): `pattern` and CEL matches/find/findAll with Go's RE2 syntax
// and errors, linear on adversarial values, CEL's cost charged by string and pattern length as cel-go does, and
// the write's regular-expression budget shared by schema patterns and rules.
import { describe, expect, it } from 'vitest';
import { compileSchemaRules } from '../../../core/crd/cel/compile';
import { evaluateRules } from '../../../core/crd/cel/evaluate';
import { PER_CALL_STEPS, withStepLimit } from '../../../core/crd/cel/library';
import { regexCallCost } from '../../../core/crd/cel/regex';
import type { JSONSchemaProps } from '../../../core/crd/crd-object';
import { validateCustomObject } from '../../../core/crd/custom-object';
import { CRD_PATTERN_INSTS } from '../../../core/crd/structural';
import { defaultCrd, validateCrd } from '../../../core/crd/validate-crd';
import { RegexBudget } from '../../../core/regex/budget';
import { fromOpenAPIV3 } from '../../../core/schema/node';
import type { Crd } from '../../../core/crd/crd-object';

const DOTTED = '^([a-z0-9]+[-.]?)*[a-z0-9]$';
const ROOT = 'spec.validation.openAPIV3Schema';
const adversarial = (n: number) => 'a'.repeat(n - 1) + '!';
const obj = (spec: unknown) => ({ apiVersion: 'x.io/v1', kind: 'W', metadata: { name: 'w' }, spec });

function crdWith(spec: JSONSchemaProps): Crd {
  const c: any = {
    metadata: { name: 'ws.x.io' },
    spec: { group: 'x.io', scope: 'Namespaced', names: { plural: 'ws', kind: 'W' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }] },
  };
  defaultCrd(c);
  return c;
}
const crdErrors = (spec: JSONSchemaProps) => validateCrd(crdWith(spec)).map((e) => `${e.field}: ${e.message}`);

function rules(spec: JSONSchemaProps) {
  const { tree, errors } = compileSchemaRules({ type: 'object', properties: { spec } }, ROOT);
  return { tree, errors: errors.map((e) => `${e.field}: ${e.message}`) };
}

describe('CRD pattern', () => {
  const schema = fromOpenAPIV3({ type: 'object', properties: { spec: { type: 'object', properties: { name: { type: 'string', pattern: DOTTED } } } } });

  it('refuses adversarial values quickly, with kube-openapi\'s message', () => {
    for (const n of [27, 1000, 100_000]) {
      const v = adversarial(n);
      expect(validateCustomObject(schema, obj({ name: v }))).toEqual([{
        reason: 'FieldValueInvalid', field: 'spec.name', message: `Invalid value: "${v}": spec.name in body should match '${DOTTED}'`,
      }]);
    }
    expect(validateCustomObject(schema, obj({ name: 'a.b-c' }))).toEqual([]);
  });

  it('refuses, unchecked, a value whose check would pass the write\'s regular-expression budget', () => {
    const big = fromOpenAPIV3({ type: 'object', properties: { spec: { type: 'object', properties: { s: { type: 'string', pattern: '[ab]*a[ab]{999}c' } } } } });
    const v = 'ab'.repeat(50_000);
    const errors = validateCustomObject(big, obj({ s: v }), undefined, new RegexBudget());
    expect(errors.map((e) => e.message)).toEqual([
      `Invalid value: "${v}": spec.s in body could not be checked against '[ab]*a[ab]{999}c': this request exceeded its regular expression work budget`,
    ]);
  });

  it('is checked at CRD write with Go\'s regexp, at every node and under junctors, with kube\'s message', () => {
    expect(crdErrors({
      type: 'object',
      properties: { a: { type: 'string', pattern: '(?=x)' }, b: { type: 'string', pattern: DOTTED } },
      anyOf: [{ properties: { a: { pattern: '(a)\\1' } } }],
      not: { properties: { b: { pattern: 'x**' } } },
    })).toEqual([
      `${ROOT}.properties[spec].anyOf[0].properties[a].pattern: Invalid value: "(a)\\\\1": must be a valid regular expression, but isn't: error parsing regexp: invalid escape sequence: \`\\1\``,
      `${ROOT}.properties[spec].not.properties[b].pattern: Invalid value: "x**": must be a valid regular expression, but isn't: error parsing regexp: invalid nested repetition operator: \`**\``,
      `${ROOT}.properties[spec].properties[a].pattern: Invalid value: "(?=x)": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: \`(?=\``,
    ]);
    expect(crdErrors({ type: 'object', properties: { a: { type: 'string', pattern: '(?P<n>a)(?P<n>b)|\\p{Greek}+' } } })).toEqual([]);
  });

  it('bounds what one CRD\'s patterns may compile to together', () => {
    const properties: Record<string, JSONSchemaProps> = {};
    const each = 9000; // under MAX_PROGRAM_INSTS each
    const count = Math.ceil(CRD_PATTERN_INSTS / each) + 1;
    for (let i = 0; i < count; i++) properties[`p${i}`] = { type: 'string', pattern: `${'[a-z]{1000}'.repeat(9)}${i}` };
    const errors = crdErrors({ type: 'object', properties });
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatch(/\.pattern: Forbidden: the schema's patterns together compile to more than 100000 instructions$/);
  });
});

describe('CEL regular expressions', () => {
  const spec: JSONSchemaProps = {
    type: 'object',
    properties: { name: { type: 'string' }, re: { type: 'string' } },
    'x-kubernetes-validations': [
      { rule: `!has(self.name) || self.name.matches('${DOTTED}')`, message: 'dotted' },
      { rule: '!has(self.re) || self.name.matches(self.re)', message: 're' },
    ],
  };
  const { tree } = rules(spec);

  it('matches() refuses adversarial values quickly (cel-js\'s backtracking matches is replaced)', () => {
    for (const n of [27, 1000, 100_000]) {
      expect(evaluateRules(tree!, 'c', obj({ name: adversarial(n) })).errors.map((e) => e.message)).toEqual(['Invalid value: "object": dotted']);
    }
    expect(evaluateRules(tree!, 'c', obj({ name: 'a.b' })).errors).toEqual([]);
  });

  it('uses Go\'s syntax at run time: named groups compile, a backreference is an evaluation error', () => {
    expect(evaluateRules(tree!, 'c', obj({ name: 'ab', re: '(?P<x>a)b' })).errors).toEqual([]);
    expect(evaluateRules(tree!, 'c', obj({ name: 'ab', re: '(a)\\1' })).errors.map((e) => e.message)).toEqual([
      'Invalid value: "object": error parsing regexp: invalid escape sequence: `\\1` evaluating rule: re',
    ]);
  });

  it('find and findAll have Go\'s semantics and kube\'s run-time error', () => {
    const t = rules({
      type: 'object', properties: { s: { type: 'string' }, p: { type: 'string' } },
      'x-kubernetes-validations': [
        { rule: "self.s.find('[0-9]+') == '123' && self.s.findAll('[0-9]*') == ['123', '', '', '', '', '456'] && self.s.findAll('[0-9]+', 1) == ['123']" },
        { rule: "!has(self.p) || self.s.find(self.p) == ''", message: 'p' },
        { rule: "matches(self.s, '^[0-9]')", message: 'global' },
      ],
    });
    expect(t.errors).toEqual([]);
    expect(evaluateRules(t.tree!, 'c', obj({ s: '123 abc 456' })).errors).toEqual([]);
    expect(evaluateRules(t.tree!, 'c', obj({ s: '123 abc 456', p: '[' })).errors.map((e) => e.message)).toEqual([
      'Invalid value: "object": Illegal regex: error parsing regexp: missing closing ]: `[` evaluating rule: p',
    ]);
  });

  it('refuses constant patterns Go does not compile at CRD write, as kube does', () => {
    const rule = (r: string) => rules({ type: 'object', properties: { s: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: r }] }).errors;
    const at = `${ROOT}.properties[spec].x-kubernetes-validations[0].rule`;
    const value = (r: string) => `apiextensions.ValidationRule{Rule:${JSON.stringify(r)}, Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}`;
    // cel.ValidateRegexLiterals: every invalid literal, in source order.
    const r1 = "self.s.matches('x++') || self.s.matches('(?=a)')";
    expect(rule(r1)).toEqual([
      `${at}: Invalid value: ${value(r1)}: compilation failed: ERROR: <input>:1:16: invalid matches argument\n | ${r1}\n | ...............^\n`
      + `ERROR: <input>:1:41: invalid matches argument\n | ${r1}\n | ........................................^`,
    ]);
    // The regex optimizations at program creation: find, findAll, and matches' pattern argument.
    const r2 = "self.s.find(')') == ''";
    expect(rule(r2)).toEqual([`${at}: Invalid value: ${value(r2)}: program instantiation failed: error parsing regexp: unexpected ): \`)\``]);
    const r3 = "matches(self.s, '[')";
    expect(rule(r3)).toEqual([`${at}: Invalid value: ${value(r3)}: program instantiation failed: error parsing regexp: missing closing ]: \`[\``]);
    expect(rule("self.s.matches('(?P<n>a)|\\\\p{Greek}') && self.s.findAll('[0-9]', 2).size() < 3")).toEqual([]);
  });

  it('charges cel-go\'s cost: string length × pattern length (in code points)', () => {
    expect(regexCallCost('', 'a')).toBe(1 * 1);
    expect(regexCallCost('a'.repeat(99), DOTTED)).toBe(10 * 7);
    expect(regexCallCost('é'.repeat(9), 'ab')).toBe(1 * 1);
    expect(regexCallCost('😀'.repeat(19), 'abcde')).toBe(2 * 2);
    // A matches() on a long string costs its length: four of 100,000 characters pass the per-call limit, and the
    // rule is cancelled by cost (a pattern of 6 instructions: the regular-expression budget is not what stops it).
    const cls = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
    const ALNUM = `^[${cls}${cls}]+$`;
    const long = 'a'.repeat(100_000);
    expect(regexCallCost(long, ALNUM)).toBe(10_001 * 33);
    const t = rules({ type: 'object', properties: { xs: { type: 'array', items: { type: 'string' } } }, 'x-kubernetes-validations': [{ rule: `self.xs.all(x, x.matches('${ALNUM}'))` }] });
    expect(evaluateRules(t.tree!, 'c', obj({ xs: Array(3).fill(long) })).errors).toEqual([]);
    const costly = evaluateRules(t.tree!, 'c', obj({ xs: Array(4).fill(long) }));
    expect(costly.errors.map((e) => e.message)).toEqual([
      `Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.xs.all(x, x.matches('${ALNUM}'))`,
    ]);
    // The charge happens in the step counter: one short call costs a few steps plus its cel-go cost.
    const { steps } = withStepLimit(PER_CALL_STEPS, () => evaluateRules(t.tree!, 'c', obj({ xs: ['a'] })));
    expect(steps).toBeGreaterThan(0);
  });

  it('shares the write\'s regular-expression budget with schema patterns; past it, no further rules run', () => {
    const t = rules({
      type: 'object', properties: { s: { type: 'string' }, p: { type: 'string' } },
      'x-kubernetes-validations': [{ rule: 'self.s.matches(self.p)' }, { rule: "self.s.size() > 0 && self.p != ''" }],
    });
    const out = evaluateRules(t.tree!, 'c', obj({ s: 'ab'.repeat(50_000), p: '[ab]*a[ab]{999}c' }), undefined, new RegexBudget());
    expect(out.errors.map((e) => e.message)).toEqual([
      'Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run',
    ]);
    const spent = new RegexBudget();
    spent.charge(spent.limit);
    expect(evaluateRules(t.tree!, 'c', obj({ s: 'ab', p: 'a' }), undefined, spent).errors.map((e) => e.message)).toEqual([
      'Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run',
    ]);
  });
});
