import { describe, expect, it } from 'vitest';
import { Optional } from '@marcbachmann/cel-js';
import { celEnvironment, CostLimitExceeded, PER_CALL_STEPS, withStepLimit } from '../../../core/crd/cel/library';
import { compileSchemaRules } from '../../../core/crd/cel/compile';
import { evaluateRules } from '../../../core/crd/cel/evaluate';
import cases from './data/kube-cel-library-cases.json';

type Case = { expr: string; value?: unknown; int?: string; none?: boolean; some?: string[]; error?: string; compileError?: boolean };

function run(expr: string, self: unknown = null): { value?: unknown; error?: string; compileError?: string } {
  const program = celEnvironment().parse(expr) as unknown as ((ctx: object) => unknown) & { check(): { valid: boolean; error?: Error } };
  const checked = program.check();
  if (!checked.valid) return { compileError: String(checked.error?.message ?? checked.error).split('\n')[0] };
  try {
    return { value: withStepLimit(PER_CALL_STEPS, () => program({ self })).value };
  } catch (e) {
    return { error: String((e as Error).message).split('\n')[0] };
  }
}

describe('kube CEL libraries: the expectations of k8s.io/apiserver pkg/cel/library tests', () => {
  for (const [lib, list] of Object.entries(cases).filter(([k]) => !k.startsWith('_'))) {
    for (const c of list as Case[]) {
      it(`${lib}: ${c.expr}`, () => {
        const out = run(c.expr);
        if (c.compileError) return expect(out.compileError).toMatch(/no matching overload/);
        expect(out.compileError).toBeUndefined();
        if (c.error !== undefined) {
          // A Go test that matches with a regular expression ends it in `.*`.
          if (c.error.endsWith('.*')) return expect(out.error?.startsWith(c.error.slice(0, -2))).toBe(true);
          return expect(out.error).toBe(c.error);
        }
        expect(out.error).toBeUndefined();
        if (c.int !== undefined) return expect(out.value).toBe(BigInt(c.int));
        if (c.none) return expect((out.value as Optional).hasValue()).toBe(false);
        if (c.some) return expect((out.value as Optional).value()).toEqual(c.some);
        expect(out.value).toEqual(c.value);
      });
    }
  }
});

describe('kube CEL libraries: Go semantics beyond kube\'s own tests', () => {
  it('url(): net/url ParseRequestURI, then Parse; the getters', () => {
    expect(run('isURL("https://example.com/a?b=c")').value).toBe(true);
    expect(run('isURL("/just/a/path")').value).toBe(true);
    expect(run('isURL("example.com")').value).toBe(false);
    expect(run('isURL("http://a b.com/")').value).toBe(false);
    expect(run('url("example.com")').error).toBe('URL parse error during conversion from string: parse "example.com": invalid URI for request');
    expect(run('url("https://user:pw@[::1]:8443/p%2Fq?x=1&x=2&y=%zz").getHost()').value).toBe('[::1]:8443');
    expect(run('url("https://[::1]:8443/").getHostname()').value).toBe('::1');
    expect(run('url("https://example.com:8443/").getPort()').value).toBe('8443');
    expect(run('url("https://example.com/").getPort()').value).toBe('');
    expect(run('url("HTTPS://example.com/").getScheme()').value).toBe('https');
    expect(run('url("https://example.com/p%2Fq").getEscapedPath()').value).toBe('/p%2Fq');
    expect(run('url("https://example.com/a b").getEscapedPath()').value).toBe('/a%20b');
    expect(run('url("https://example.com/?x=1&x=2&y=%zz").getQuery()').value).toEqual(new Map([['x', ['1', '2']]]));
    expect(run('url("https://example.com/a") == url("https://example.com/a")').value).toBe(true);
  });

  it('ip and cidr: netip parsing (no leading zeros, no zones, no IPv4-mapped), canonical text, containment', () => {
    expect(run('isIP("010.1.1.1")').value).toBe(false);
    expect(run('ip("010.1.1.1")').error).toBe('IP Address "010.1.1.1" parse error during conversion from string: ParseAddr("010.1.1.1"): IPv4 field has octet with leading zero');
    expect(run('ip("fe80::1%eth0")').error).toBe('IP address "fe80::1%eth0" with zone value is not allowed');
    expect(run('ip("::ffff:1.2.3.4")').error).toBe('IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed');
    expect(run('string(ip("2001:0db8:0000:0000:0001:0000:0000:0001"))').value).toBe('2001:db8::1:0:0:1');
    expect(run('ip("1.2.3.4") == ip("1.2.3.4") && ip("1.2.3.4") != ip("1.2.3.5")').value).toBe(true);
    // kube 1.32.4 and later (cidr.go: Overlaps, not an unmasked PrefixFrom).
    expect(run('cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16")').value).toBe(true);
    expect(run('cidr("10.0.0.0/8").containsIP("2001:db8::1")').value).toBe(false);
    expect(run('isCIDR("10.0.0.0/08")').value).toBe(false);
    expect(run('isCIDR("10.0.0.0/33")').value).toBe(false);
  });

  it('quantity: isInteger/asInteger read Go\'s int64 form (a negative scale is never an integer)', () => {
    expect(run('quantity("1000m").isInteger()').value).toBe(false);
    expect(run('quantity("1.0").isInteger()').value).toBe(false);
    expect(run('quantity("1e3").asInteger()').value).toBe(1000n);
    expect(run('quantity("1Gi").asInteger()').value).toBe(1073741824n);
    expect(run('quantity("1500m").add(quantity("500m")).isInteger()').value).toBe(false);
    expect(run('quantity("1").sign() == 1 && quantity("-1m").sign() == -1 && quantity("0").sign() == 0').value).toBe(true);
  });

  it('sets and format.named', () => {
    expect(run('sets.contains([1, 2.0], [2])').value).toBe(true);
    expect(run('sets.intersects(["a", "b"], ["c", "b"])').value).toBe(true);
    expect(run('sets.equivalent([1, 2], [2, 3])').value).toBe(false);
    expect(run('format.named("dns1123Label").value().validate("ok") == optional.none()').value).toBe(true);
    expect(run('format.named("nope").hasValue()').value).toBe(false);
  });

  it('charges a call its cost first: quadratic set work stops at the per-call limit', () => {
    const big = Array.from({ length: 2000 }, (_, i) => BigInt(i));
    const program = celEnvironment().parse('sets.contains(self, self)') as unknown as (ctx: object) => unknown;
    expect(() => withStepLimit(PER_CALL_STEPS, () => program({ self: big }))).toThrow(CostLimitExceeded);
    const long = 'a'.repeat(200_000);
    const ips = celEnvironment().parse('self.all(s, !isIP(s))') as unknown as (ctx: object) => unknown;
    // 100 strings of 200k code points: 20k units each (ceil(size × 0.1)), two million in all.
    expect(() => withStepLimit(PER_CALL_STEPS, () => ips({ self: Array(100).fill(long) }))).toThrow(CostLimitExceeded);
  });
});

describe('has() on any selection, as cel-go takes it', () => {
  const schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          rules: {
            type: 'array',
            items: { type: 'object', properties: { matches: { type: 'array', items: { type: 'object', properties: { path: { type: 'object', properties: { value: { type: 'string' } } } } } } } },
            'x-kubernetes-validations': [
              { rule: 'size(self) == 0 || has(self[0].matches)', message: 'first rule needs matches' },
              { rule: 'self.all(r, !has(r.matches) || r.matches.all(m, !has(m.path) || has(m.path.value)))', message: 'path needs a value' },
            ],
          },
          a: { type: 'object', properties: { b: { type: 'array', items: { type: 'object', properties: { c: { type: 'string' } } } } }, 'x-kubernetes-validations': [{ rule: 'size(self.b) == 0 || has(self.b[0].c)', message: 'b[0].c' }] },
        },
        'x-kubernetes-validations': [{ rule: '!has(self.rules) || size(self.rules) < 2 || !has(self.rules[1].matches) || has(self.rules[1].matches[0].path)', message: 'second rule path' }],
      },
    },
  };
  const { tree, errors } = compileSchemaRules(schema, 'spec.validation.openAPIV3Schema');
  const obj = (spec: unknown) => ({ apiVersion: 'x.io/v1', kind: 'R', metadata: { name: 'r' }, spec });

  it('compiles has(self[0].matches), has(self.matches[0].path) and has(self.a.b[0].c)', () => {
    expect(errors).toEqual([]);
  });

  it('evaluates the operand, then tests the field', () => {
    expect(evaluateRules(tree!, 'rs.x.io', obj({ rules: [{ matches: [{ path: { value: '/' } }] }], a: { b: [{ c: 'x' }] } })).errors).toEqual([]);
    expect(evaluateRules(tree!, 'rs.x.io', obj({ rules: [{}] })).errors).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.rules', message: 'Invalid value: "array": first rule needs matches' },
    ]);
    expect(evaluateRules(tree!, 'rs.x.io', obj({ rules: [{ matches: [] }, { matches: [{}] }], a: { b: [{}] } })).errors).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": second rule path' },
      { reason: 'FieldValueInvalid', field: 'spec.a', message: 'Invalid value: "object": b[0].c' },
    ]);
    expect(evaluateRules(tree!, 'rs.x.io', obj({ rules: [{ matches: [{ path: {} }] }] })).errors).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.rules', message: 'Invalid value: "array": path needs a value' },
    ]);
  });

  it('still refuses has() on something that is not a selection', () => {
    const out = compileSchemaRules({ type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'has(self)' }] } } }, 'p');
    expect(out.errors.map((e) => e.message)).toEqual([expect.stringContaining('compilation failed: ERROR: <input>:1:5: has() invalid argument')]);
  });
});

describe('unimplemented functions are found anywhere in a rule', () => {
  it('under unary !, in macros, ternaries, indexes and literals', () => {
    const { tree, errors } = compileSchemaRules({
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { hosts: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'self.all(h, !isIP(h))', message: 'Hostnames cannot contain an IP' }] } },
        },
      },
    }, 'p');
    expect(errors).toEqual([]);
    const obj = (hosts: string[]) => ({ apiVersion: 'x.io/v1', kind: 'R', metadata: { name: 'r' }, spec: { hosts } });
    expect(evaluateRules(tree!, 'rs.x.io', obj(['example.com'])).errors).toEqual([]);
    expect(evaluateRules(tree!, 'rs.x.io', obj(['example.com', '10.0.0.1'])).errors).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.hosts', message: 'Invalid value: "array": Hostnames cannot contain an IP' },
    ]);
  });
});
