import { describe, expect, it } from 'vitest';
import { compileSchemaRules, resolveFieldPath, unsupportedRules } from '../../../core/crd/cel/compile';
import { evaluateRules } from '../../../core/crd/cel/evaluate';
import type { JSONSchemaProps } from '../../../core/crd/crd-object';

function tree(schema: JSONSchemaProps) {
  const { tree, errors } = compileSchemaRules(schema, 'spec.validation.openAPIV3Schema');
  expect(errors).toEqual([]);
  return tree!;
}

const obj = (spec: unknown) => ({ apiVersion: 'x.io/v1', kind: 'W', metadata: { name: 'w', namespace: 'd', uid: 'u' }, spec });

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: '!has(self.minReplicas) || !has(self.maxReplicas) || self.minReplicas <= self.maxReplicas', message: 'minReplicas must not exceed maxReplicas' },
        { rule: 'self.mode == oldSelf.mode', message: 'mode is immutable' },
      ],
      properties: {
        minReplicas: { type: 'integer' },
        maxReplicas: { type: 'integer' },
        mode: { type: 'string' },
        ratio: { type: 'number', 'x-kubernetes-validations': [{ rule: 'self < 1.5' }] },
        name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.startsWith("a") && self.lowerAscii() == self', messageExpression: '"name " + self + " is bad"' }] },
        ports: {
          type: 'array', items: { type: 'integer' },
          'x-kubernetes-validations': [{ rule: 'self.isSorted() && self.all(p, p > 0) && self.sum() < 100', reason: 'FieldValueForbidden' }],
        },
        labels: {
          type: 'object', additionalProperties: { type: 'string' },
          'x-kubernetes-validations': [{ rule: "!has(self.forbidden) && self.all(k, self[k].size() < 5)", fieldPath: ".forbidden", reason: 'FieldValueRequired' }],
        },
        items: {
          type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['key'],
          items: {
            type: 'object', properties: { key: { type: 'string' }, value: { type: 'integer' } },
            'x-kubernetes-validations': [{ rule: 'self.value >= oldSelf.value', message: 'value may only grow' }],
          },
        },
      },
    },
  },
};

describe('CEL rules: evaluation', () => {
  const t = tree(schema);

  it('binds self to an object and reports the schema type as kube does', () => {
    expect(evaluateRules(t, 'ws.x.io', obj({ minReplicas: 1, maxReplicas: 3 })).errors).toEqual([]);
    expect(evaluateRules(t, 'ws.x.io', obj({ minReplicas: 4, maxReplicas: 3 })).errors).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": minReplicas must not exceed maxReplicas' },
    ]);
  });

  it('scalar self: double and string rules, messageExpression', () => {
    expect(evaluateRules(t, 'c', obj({ ratio: 2 })).errors).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.ratio', message: 'Invalid value: "number": failed rule: self < 1.5' },
    ]);
    expect(evaluateRules(t, 'c', obj({ ratio: 1 })).errors).toEqual([]);
    expect(evaluateRules(t, 'c', obj({ name: 'abc' })).errors).toEqual([]);
    expect(evaluateRules(t, 'c', obj({ name: 'aBc' })).errors).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.name', message: 'Invalid value: "string": name aBc is bad' },
    ]);
  });

  it('list self with kube list functions and reason Forbidden', () => {
    expect(evaluateRules(t, 'c', obj({ ports: [1, 2, 3] })).errors).toEqual([]);
    expect(evaluateRules(t, 'c', obj({ ports: [3, 2] })).errors).toEqual([
      { reason: 'FieldValueForbidden', field: 'spec.ports', message: 'Forbidden: failed rule: self.isSorted() && self.all(p, p > 0) && self.sum() < 100' },
    ]);
  });

  it('map self, fieldPath and reason Required', () => {
    expect(evaluateRules(t, 'c', obj({ labels: { a: 'x' } })).errors).toEqual([]);
    expect(evaluateRules(t, 'c', obj({ labels: { forbidden: 'x' } })).errors).toEqual([
      { reason: 'FieldValueRequired', field: 'spec.labels[forbidden]', message: "Required value: failed rule: !has(self.forbidden) && self.all(k, self[k].size() < 5)" },
    ]);
  });

  it('transition rules: skipped on create, evaluated against oldSelf on update, list-map items by key', () => {
    expect(evaluateRules(t, 'c', obj({ mode: 'a', items: [{ key: 'k', value: 1 }] })).errors).toEqual([]);
    const old = obj({ mode: 'a', items: [{ key: 'k', value: 5 }, { key: 'j', value: 1 }] });
    expect(evaluateRules(t, 'c', obj({ mode: 'a', items: [{ key: 'j', value: 2 }, { key: 'k', value: 5 }] }), old).errors).toEqual([]);
    expect(evaluateRules(t, 'c', obj({ mode: 'b', items: [{ key: 'k', value: 4 }, { key: 'new', value: 0 }] }), old).errors).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": mode is immutable' },
      { reason: 'FieldValueInvalid', field: 'spec.items[0]', message: 'Invalid value: "object": value may only grow' },
    ]);
  });

  it('ratchets: a rule failing on an unchanged value only warns', () => {
    const bad = obj({ minReplicas: 5, maxReplicas: 1, mode: 'a' });
    const out = evaluateRules(t, 'c', structuredClone(bad), bad);
    expect(out.errors).toEqual([]);
    expect(out.warnings).toEqual(['spec: Invalid value: "object": minReplicas must not exceed maxReplicas']);
  });

  it('root rules print <nil>, see metadata.name only, and report runtime errors as kube does', () => {
    const rt = tree({
      type: 'object',
      'x-kubernetes-validations': [
        { rule: 'self.metadata.name.startsWith("w") && !has(self.metadata.uid)' },
        { rule: 'self.spec.missing == 1' },
        { rule: 'self.metadata.name == "x"', reason: 'FieldValueDuplicate' },
      ],
      properties: { spec: { type: 'object', properties: { missing: { type: 'integer' } } } },
    });
    expect(evaluateRules(rt, 'c', obj({})).errors).toEqual([
      { reason: 'FieldValueInvalid', field: '<nil>', message: 'Invalid value: "object": no such key: missing evaluating rule: self.spec.missing == 1' },
      { reason: 'FieldValueDuplicate', field: '<nil>', message: 'Duplicate value: "object"' },
    ]);
  });

  it('optionalOldSelf: evaluated on create with oldSelf none', () => {
    const ot = tree({
      type: 'object',
      properties: { spec: { type: 'object', properties: { v: { type: 'string' } },
        'x-kubernetes-validations': [{ rule: '!oldSelf.hasValue() || oldSelf.value().v == self.v', optionalOldSelf: true, message: 'v is immutable once set' }] } },
    });
    expect(evaluateRules(ot, 'c', obj({ v: 'a' })).errors).toEqual([]);
    expect(evaluateRules(ot, 'c', obj({ v: 'a' }), obj({ v: 'a' })).errors).toEqual([]);
    expect(evaluateRules(ot, 'c', obj({ v: 'b' }), obj({ v: 'a' })).errors).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": v is immutable once set' },
    ]);
  });

  it('bounds the cost of one rule and stops evaluating', () => {
    const ct = tree({
      type: 'object',
      properties: { spec: { type: 'object', properties: { xs: { type: 'array', items: { type: 'integer' } } },
        'x-kubernetes-validations': [{ rule: 'self.xs.all(a, self.xs.all(b, self.xs.all(c, a + b + c >= 0)))' }, { rule: 'false' }] } },
    });
    const xs = Array.from({ length: 200 }, (_, i) => i);
    const started = Date.now();
    const out = evaluateRules(ct, 'c', obj({ xs }));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(out.errors).toEqual([{
      reason: 'FieldValueInvalid', field: 'spec',
      message: "Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.xs.all(a, self.xs.all(b, self.xs.all(c, a + b + c >= 0)))",
    }]);
  });
});

describe('CEL rules: compilation at CRD write', () => {
  it('reports a rule that does not parse, with the rule as Go prints it', () => {
    const { errors } = compileSchemaRules({ type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.x >' }] } } }, 'spec.validation.openAPIV3Schema');
    expect(errors).toHaveLength(1);
    expect(errors[0].field).toBe('spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule');
    expect(errors[0].message).toMatch(/^Invalid value: apiextensions\.ValidationRule\{Rule:"self\.x >", Message:"", MessageExpression:"", Reason:\(\*apiextensions\.FieldValueErrorReason\)\(nil\), FieldPath:"", OptionalOldSelf:\(\*bool\)\(nil\)\}: compilation failed: ERROR: <input>:1:9: /);
  });

  it('refuses unknown functions, non-bool rules, bad reasons, fieldPaths and oldSelf where nothing correlates', () => {
    const { errors } = compileSchemaRules({
      type: 'object',
      properties: {
        spec: {
          type: 'object', properties: { a: { type: 'string' }, xs: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } } },
          'x-kubernetes-validations': [{ rule: 'self.a.nope()' }, { rule: '1 + 1' }, { rule: 'true', reason: 'Bogus' }, { rule: 'true', fieldPath: '.b' }, { rule: 'true', messageExpression: '1' }],
        },
      },
    }, 'p');
    expect(errors.map((e) => [e.field, e.message.replace(/^Invalid value: apiextensions\.ValidationRule\{[^}]*\}: /, '').split('\n')[0]])).toEqual([
      ['p.properties[spec].x-kubernetes-validations[0].rule', "compilation failed: ERROR: <input>:1:1: found no matching overload for 'dyn.nope()'"],
      ['p.properties[spec].x-kubernetes-validations[1].rule', 'compilation failed: cel expression must evaluate to a bool'],
      ['p.properties[spec].x-kubernetes-validations[2].reason', 'Unsupported value: "Bogus": supported values: "FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate"'],
      ['p.properties[spec].x-kubernetes-validations[3].fieldPath', 'Invalid value: ".b": fieldPath must be a valid path: does not refer to a valid field'],
      ['p.properties[spec].x-kubernetes-validations[4].messageExpression', 'must evaluate to a string'],
      ['p.properties[spec].properties[xs].items.x-kubernetes-validations[0].rule', 'oldSelf cannot be used on the uncorrelatable portion of the schema within p.properties[spec].properties[xs].items'],
    ]);
  });

  it('accepts rules using kube functions it cannot evaluate, wherever the call is, and names them', () => {
    const rules = [
      'strings.quote(self.q) != ""',
      '!(strings.quote(self.q) == "")',
      'self.q == "" ? true : [strings.quote(self.q)][0] != ""',
      '[1].all(x, {"a": strings.quote(self.q)}["a"] != "")',
    ];
    const { tree, errors } = compileSchemaRules({ type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-validations': rules.map((rule) => ({ rule })) } } }, 'p');
    expect(errors).toEqual([]);
    expect(unsupportedRules(tree!)).toEqual(rules.map((rule) => ({ path: 'p.properties[spec].x-kubernetes-validations', rule, functions: ['strings.quote'] })));
    const out = evaluateRules(tree!, 'qs.x.io', obj({ q: '2Gi' }));
    expect(out.errors).toEqual([]);
    expect(out.warnings[0]).toBe('qs.x.io: x-kubernetes-validations rule "strings.quote(self.q) != \\"\\"" at spec was not checked: this server does not support strings.quote');
  });

  it('resolves fieldPaths against the schema', () => {
    const s = { type: 'object', properties: { a: { type: 'object', properties: { 'b.c': { type: 'string' } } }, m: { type: 'object', additionalProperties: { type: 'string' } } } };
    expect(resolveFieldPath(".a['b.c']", s)).toBe('a.b.c');
    expect(resolveFieldPath(".m['k']", s)).toBe('m[k]');
    expect(resolveFieldPath('.zz', s)).toEqual({ error: 'does not refer to a valid field' });
  });
});

describe('CEL rules: kube library extras', () => {
  it('format(), date-time and duration strings as timestamps and durations, string and list extensions', () => {
    const t = tree({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            at: { type: 'string', format: 'date-time' },
            every: { type: 'string', format: 'duration' },
            name: { type: 'string' },
            xs: { type: 'array', items: { type: 'integer' } },
          },
          'x-kubernetes-validations': [
            { rule: 'self.at > timestamp("2024-01-01T00:00:00Z") && self.every <= duration("1h")', messageExpression: '"%s is too early or %s too long (%d items)".format([self.at, self.every, size(self.xs)])' },
            { rule: 'self.name.replace("-", "").charAt(0) == "a" && self.name.split("-").size() == 2 && self.name.find("[0-9]+") == "12"' },
            { rule: 'self.xs.min() == 1 && self.xs.max() == 3 && self.xs.indexOf(2) == 1 && self.xs.lastIndexOf(9) == -1 && self.xs.slice(1, 3) == [2, 3]' },
          ],
        },
      },
    });
    expect(evaluateRules(t, 'c', obj({ at: '2025-05-05T00:00:00Z', every: '30m', name: 'a-12', xs: [1, 2, 3] })).errors).toEqual([]);
    expect(evaluateRules(t, 'c', obj({ at: '2020-05-05T00:00:00Z', every: '30m', name: 'a-12', xs: [1, 2, 3] })).errors).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": 2020-05-05T00:00:00Z is too early or 1800s too long (3 items)' },
    ]);
  });

  it('stops every rule once the write\'s budget is spent', () => {
    const rules = Array.from({ length: 20 }, () => ({ rule: 'self.xs.all(a, self.xs.all(b, a + b >= 0))' }));
    const t = tree({ type: 'object', properties: { spec: { type: 'object', properties: { xs: { type: 'array', items: { type: 'integer' } } }, 'x-kubernetes-validations': rules } } });
    // Each rule takes most of its per-call allowance; together they pass the per-write budget.
    const xs = Array.from({ length: 300 }, (_, i) => i);
    const out = evaluateRules(t, 'c', obj({ xs }));
    expect(out.errors).toEqual([{ reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run' }]);
  });
});
