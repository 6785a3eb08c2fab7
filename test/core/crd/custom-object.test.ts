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
