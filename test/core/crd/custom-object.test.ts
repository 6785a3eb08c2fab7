import { describe, expect, it } from 'vitest';
import { fromOpenAPIV3 } from '../../../core/schema/node';
import { defaultCustomObject, pruneCustomObject, validateCustomObject } from '../../../core/crd/custom-object';

const schema = fromOpenAPIV3({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['image'],
      properties: {
        image: { type: 'string', maxLength: 5 },
        replicas: { type: 'integer', minimum: 0, maximum: 10, default: 1 },
        port: { 'x-kubernetes-int-or-string': true },
        when: { type: 'string', format: 'date-time' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 2, 'x-kubernetes-list-type': 'set' },
        opts: { type: 'object', additionalProperties: { type: 'string' } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { a: { type: 'string' } } } } },
        maybe: { type: 'string', nullable: true },
        nested: { type: 'object', default: {}, properties: { x: { type: 'string', default: 'dx' } } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
  },
});

describe('pruning and defaulting', () => {
  it('drops undeclared fields at any depth, keeps preserved ones, prunes declared children of preserved nodes', () => {
    const obj = {
      apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a', bogus: 1 },
      spec: { image: 'i', extra: 1, free: { anything: { deep: 1 }, known: { a: 'ok', b: 2 } }, opts: { k: 'v' }, template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', junk: 1 }, spec: {} } },
      top: true,
    };
    const { unknown } = pruneCustomObject(schema, obj);
    expect(unknown).toEqual([
      'unknown field "metadata.bogus"',
      'unknown field "spec.extra"',
      'unknown field "spec.free.known.b"',
      'unknown field "spec.template.metadata.junk"',
      'unknown field "top"',
    ]);
    expect(obj).toEqual({
      apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' },
      spec: { image: 'i', free: { anything: { deep: 1 }, known: { a: 'ok' } }, opts: { k: 'v' }, template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} } },
    });
  });

  it('drops nulls unless nullable, fills defaults top-down', () => {
    const obj: Record<string, unknown> = { spec: { image: null, maybe: null, replicas: null } };
    pruneCustomObject(schema, obj);
    defaultCustomObject(schema, obj);
    expect(obj).toEqual({ spec: { maybe: null, replicas: 1, nested: { x: 'dx' } } });
  });
});

describe('validation', () => {
  const errors = (spec: unknown, old?: unknown) => validateCustomObject(schema, { spec }, old === undefined ? undefined : { spec: old })
    .map((e) => `${e.field}: ${e.message}`);

  it('reports kube-openapi messages with field paths', () => {
    expect(errors({ image: 'toolong', replicas: 11, port: true, when: 'yesterday', tags: ['a', 'a', 'b'] })).toEqual([
      'spec.image: Too long: may not be more than 5 bytes',
      'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
      'spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
      'spec.tags: Too many: 3: must have at most 2 items',
      'spec.tags[1]: Duplicate value: "a"',
    ]);
    expect(errors({ replicas: -1 })).toEqual([
      'spec.image: Required value',
      'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
    ]);
    expect(errors({ image: 'a', replicas: 1.5, opts: { k: 3 } })).toEqual([
      'spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"',
      'spec.opts.k: Invalid value: "integer": spec.opts.k in body must be of type string: "integer"',
    ]);
    expect(errors({ image: 'a', port: 'http', when: '2024-01-02T03:04:05Z', template: { apiVersion: 'v1', kind: 'Pod' } })).toEqual([]);
    expect(errors({ image: 'a', template: {} })).toEqual(['spec.template.apiVersion: Required value: must not be empty', 'spec.template.kind: Required value: must not be empty']);
  });

  it('ratchets: unchanged invalid values do not fail an update; changed ones do', () => {
    expect(errors({ image: 'toolong', replicas: 2 }, { image: 'toolong', replicas: 1 })).toEqual([]);
    expect(errors({ image: 'toolong2', replicas: 2 }, { image: 'toolong', replicas: 1 })).toEqual(['spec.image: Too long: may not be more than 5 bytes']);
  });
});

describe('junctors: allOf, anyOf, oneOf and not, as kube-openapi validates them', () => {
  // Gateway API's address schema (gateway.networking.k8s.io_gateways.yaml, v1.6.1): an IPAddress value
  // must be an IPv4 or IPv6 address, other types anything.
  const gateway = fromOpenAPIV3({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          addresses: {
            type: 'array',
            items: {
              type: 'object',
              oneOf: [
                { properties: { type: { enum: ['IPAddress'] }, value: { anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] } } },
                { properties: { type: { not: { enum: ['IPAddress'] } } } },
              ],
              properties: { type: { type: 'string', default: 'IPAddress' }, value: { type: 'string' } },
            },
          },
        },
      },
    },
  });
  const gw = (addresses: unknown[]) => ({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { name: 'g' }, spec: { addresses } });

  it('format in anyOf/oneOf branches is enforced, with the branch that got furthest explaining', () => {
    expect(validateCustomObject(gateway, gw([{ type: 'IPAddress', value: '1.2.3.4' }, { type: 'IPAddress', value: '2001:db8::1' }, { type: 'Hostname', value: 'x.example.com' }]))).toEqual([]);
    expect(validateCustomObject(gateway, gw([{ type: 'IPAddress', value: '1.2.3.4:8080' }]))).toEqual([
      { reason: 'FieldValueInvalid', field: '<nil>', message: 'Invalid value: "": "spec.addresses[0]" must validate one and only one schema (oneOf). Found none valid' },
      { reason: 'FieldValueInvalid', field: '<nil>', message: 'Invalid value: "": "spec.addresses[0].value" must validate at least one schema (anyOf)' },
      { reason: 'FieldValueInvalid', field: 'spec.addresses[0].value', message: 'Invalid value: "1.2.3.4:8080": spec.addresses[0].value in body must be of type ipv4: "1.2.3.4:8080"' },
    ]);
  });

  it('allOf reports every failing branch, not a branch that validates, oneOf two that validate', () => {
    const s = fromOpenAPIV3({
      type: 'object',
      properties: {
        a: { type: 'string', allOf: [{ maxLength: 3 }, { pattern: '^x' }] },
        b: { type: 'string', not: { enum: ['forbidden'] } },
        c: { type: 'integer', oneOf: [{ minimum: 0 }, { maximum: 10 }] },
        d: { type: 'string', allOf: [{ format: 'uuid' }, { format: 'date' }] },
      },
    });
    expect(validateCustomObject(s, { a: 'yyyy', b: 'forbidden', c: 5, d: 'x' })).toEqual([
      { reason: 'FieldValueTooLong', field: 'a', message: 'Too long: may not be more than 3 bytes' },
      { reason: 'FieldValueInvalid', field: 'a', message: 'Invalid value: "yyyy": a in body should match \'^x\'' },
      { reason: 'FieldValueInvalid', field: '<nil>', message: 'Invalid value: "": "a" must validate all the schemas (allOf). None validated' },
      { reason: 'FieldValueInvalid', field: '<nil>', message: 'Invalid value: "": "b" must not validate the schema (not)' },
      { reason: 'FieldValueInvalid', field: '<nil>', message: 'Invalid value: "": "c" must validate one and only one schema (oneOf). Found 2 valid alternatives' },
      { reason: 'FieldValueInvalid', field: 'd', message: 'Invalid value: "x": d in body must be of type uuid: "x"' },
      { reason: 'FieldValueInvalid', field: 'd', message: 'Invalid value: "x": d in body must be of type date: "x"' },
      { reason: 'FieldValueInvalid', field: '<nil>', message: 'Invalid value: "": "d" must validate all the schemas (allOf). None validated' },
    ]);
  });

  it('ratchets junctor errors on an unchanged value like any other', () => {
    const old = gw([{ type: 'IPAddress', value: 'bad' }]);
    expect(validateCustomObject(gateway, gw([{ type: 'IPAddress', value: 'bad' }]), old)).toEqual([]);
    expect(validateCustomObject(gateway, gw([{ type: 'IPAddress', value: 'worse' }]), old)).toHaveLength(3);
  });

  it('formats: only the ones kube validates, with dashes ignored in names', () => {
    const s = fromOpenAPIV3({
      type: 'object',
      properties: {
        dt: { type: 'string', format: 'datetime' }, dt2: { type: 'string', format: 'date-time' }, custom: { type: 'string', format: 'my-format' },
        color: { type: 'string', format: 'hexcolor' }, dur: { type: 'string', format: 'duration' }, u: { type: 'string', format: 'uri' },
      },
    });
    expect(validateCustomObject(s, { dt: '2024-02-29T10:00:00Z', dt2: '2024-02-29t10:00:00.5+01:00', custom: '!!', color: '#fff', dur: '1h30m', u: 'https://x.example/a' })).toEqual([]);
    expect(validateCustomObject(s, { dur: '5 days' })).toEqual([]);
    expect(validateCustomObject(s, { dt: '2023-02-29T10:00:00Z', dt2: '2024-01-01 10:00:00Z', color: '#ffff', dur: 'soon', u: 'x.example' }).map((e) => e.message)).toEqual([
      'Invalid value: "2023-02-29T10:00:00Z": dt in body must be of type datetime: "2023-02-29T10:00:00Z"',
      'Invalid value: "2024-01-01 10:00:00Z": dt2 in body must be of type date-time: "2024-01-01 10:00:00Z"',
      'Invalid value: "#ffff": color in body must be of type hexcolor: "#ffff"',
      'Invalid value: "soon": dur in body must be of type duration: "soon"',
      'Invalid value: "x.example": u in body must be of type uri: "x.example"',
    ]);
  });
});
