import { describe, expect, it } from 'vitest';
import { negotiateOpenApiV2, OPENAPI_V2_PROTOBUF_CONTENT_TYPE, openApiV2Document, openApiV2Json, openApiV2Protobuf } from '../../../core/discovery/openapi-v2';
import { openApiV3Document } from '../../../core/discovery/openapi-v3';
import { ProtoReader, WireType } from '../../../core/protobuf/wire';
import { encodeOpenApiV2Document } from '../../../core/protobuf/openapi-v2';
import { setCustomTypes } from '../../../core/registry';
import { typesFromCrd } from '../../../core/crd/crd-types';
import type { Crd } from '../../../core/crd/crd-object';

// ---- a test-only decoder for the gnostic openapi_v2 messages, field numbers from OpenAPIv2.proto ----

type Spec = Record<number, [name: string, kind: 'string' | 'bool' | 'double' | 'int64' | (() => Spec), repeated?: boolean]>;
type Decoded = Record<string, any>;

const Any: Spec = { 2: ['yaml', 'string'] };
const NamedAny: Spec = { 1: ['name', 'string'], 2: ['value', () => Any] };
const TypeItem: Spec = { 1: ['value', 'string', true] };
const Schema: Spec = {
  1: ['_ref', 'string'], 2: ['format', 'string'], 3: ['title', 'string'], 4: ['description', 'string'], 5: ['default', () => Any],
  6: ['multiple_of', 'double'], 7: ['maximum', 'double'], 8: ['exclusive_maximum', 'bool'], 9: ['minimum', 'double'],
  10: ['exclusive_minimum', 'bool'], 11: ['max_length', 'int64'], 12: ['min_length', 'int64'], 13: ['pattern', 'string'],
  14: ['max_items', 'int64'], 15: ['min_items', 'int64'], 16: ['unique_items', 'bool'], 17: ['max_properties', 'int64'],
  18: ['min_properties', 'int64'], 20: ['enum', () => Any, true], 30: ['example', () => Any],
  19: ['required', 'string', true], 21: ['additional_properties', () => AdditionalPropertiesItem], 22: ['type', () => TypeItem],
  23: ['items', () => ItemsItem], 24: ['all_of', () => Schema, true], 25: ['properties', () => Properties],
  31: ['vendor_extension', () => NamedAny, true],
};
const NamedSchema: Spec = { 1: ['name', 'string'], 2: ['value', () => Schema] };
const Properties: Spec = { 1: ['additional_properties', () => NamedSchema, true] };
const ItemsItem: Spec = { 1: ['schema', () => Schema, true] };
const AdditionalPropertiesItem: Spec = { 1: ['schema', () => Schema], 2: ['boolean', 'bool'] };
const BodyParameter: Spec = { 1: ['description', 'string'], 2: ['name', 'string'], 3: ['in', 'string'], 4: ['required', 'bool'], 5: ['schema', () => Schema] };
const QueryParameter: Spec = { 1: ['required', 'bool'], 2: ['in', 'string'], 3: ['description', 'string'], 4: ['name', 'string'], 6: ['type', 'string'], 20: ['uniqueItems', 'bool'] };
const PathParameter: Spec = { 1: ['required', 'bool'], 2: ['in', 'string'], 3: ['description', 'string'], 4: ['name', 'string'], 5: ['type', 'string'], 19: ['uniqueItems', 'bool'] };
const NonBodyParameter: Spec = { 3: ['query', () => QueryParameter], 4: ['path', () => PathParameter] };
const Parameter: Spec = { 1: ['body', () => BodyParameter], 2: ['non_body', () => NonBodyParameter] };
const ParametersItem: Spec = { 1: ['parameter', () => Parameter] };
const Response: Spec = { 1: ['description', 'string'], 2: ['schema', () => ({ 1: ['schema', () => Schema] })] };
const NamedResponseValue: Spec = { 1: ['name', 'string'], 2: ['value', () => ({ 1: ['response', () => Response] })] };
const Operation: Spec = {
  1: ['tags', 'string', true], 3: ['description', 'string'], 5: ['operationId', 'string'], 6: ['produces', 'string', true],
  7: ['consumes', 'string', true], 8: ['parameters', () => ParametersItem, true],
  9: ['responses', () => ({ 1: ['response_code', () => NamedResponseValue, true] })], 10: ['schemes', 'string', true],
  13: ['vendor_extension', () => NamedAny, true],
};
const PathItem: Spec = {
  2: ['get', () => Operation], 3: ['put', () => Operation], 4: ['post', () => Operation], 5: ['delete', () => Operation],
  8: ['patch', () => Operation], 9: ['parameters', () => ParametersItem, true],
};
const Document: Spec = {
  1: ['swagger', 'string'], 2: ['info', () => ({ 1: ['title', 'string'], 2: ['version', 'string'] })],
  8: ['paths', () => ({ 2: ['path', () => ({ 1: ['name', 'string'], 2: ['value', () => PathItem] }), true] })],
  9: ['definitions', () => ({ 1: ['additional_properties', () => NamedSchema, true] })],
};

function decode(bytes: Uint8Array, spec: Spec): Decoded {
  const r = new ProtoReader(bytes);
  const out: Decoded = {};
  while (!r.done) {
    const { field, wire } = r.tag();
    const f = spec[field];
    if (!f) throw new Error(`unexpected field ${field}`);
    const [name, kind, repeated] = f;
    let value: unknown;
    if (kind === 'bool') {
      expect(wire).toBe(WireType.Varint);
      value = r.bool();
    } else if (kind === 'int64') {
      expect(wire).toBe(WireType.Varint);
      value = r.int64();
    } else if (kind === 'double') {
      expect(wire).toBe(WireType.Fixed64);
      value = r.fixed64().getFloat64(0, true);
    } else {
      expect(wire).toBe(WireType.Bytes);
      const payload = r.bytes();
      value = kind === 'string' ? new TextDecoder('utf-8', { fatal: true }).decode(payload) : decode(payload, kind());
    }
    if (repeated) (out[name] ??= []).push(value);
    else {
      expect(out, `field ${name} repeated`).not.toHaveProperty(name);
      out[name] = value;
    }
  }
  return out;
}

/** Decoded Schema back to swagger JSON, the way gnostic's ToRawInfo would. */
function toSwagger(s: Decoded): Decoded {
  const out: Decoded = {};
  if (s._ref) out.$ref = s._ref;
  if (s.format) out.format = s.format;
  if (s.title) out.title = s.title;
  if (s.description) out.description = s.description;
  if (s.default) out.default = JSON.parse(s.default.yaml);
  const numbers = { multiple_of: 'multipleOf', maximum: 'maximum', minimum: 'minimum', max_length: 'maxLength', min_length: 'minLength', max_items: 'maxItems', min_items: 'minItems', max_properties: 'maxProperties', min_properties: 'minProperties' };
  for (const [k, v] of Object.entries(numbers)) if (s[k] !== undefined) out[v] = s[k];
  if (s.exclusive_maximum) out.exclusiveMaximum = true;
  if (s.exclusive_minimum) out.exclusiveMinimum = true;
  if (s.pattern) out.pattern = s.pattern;
  if (s.enum) out.enum = s.enum.map((e: Decoded) => JSON.parse(e.yaml));
  if (s.unique_items) out.uniqueItems = true;
  if (s.required) out.required = s.required;
  if (s.additional_properties) out.additionalProperties = s.additional_properties.schema ? toSwagger(s.additional_properties.schema) : s.additional_properties.boolean;
  if (s.type) out.type = s.type.value.length === 1 ? s.type.value[0] : s.type.value;
  if (s.items) out.items = toSwagger(s.items.schema[0]);
  if (s.all_of) out.allOf = s.all_of.map(toSwagger);
  if (s.properties) out.properties = named(s.properties.additional_properties ?? [], toSwagger);
  for (const e of s.vendor_extension ?? []) out[e.name] = JSON.parse(e.value.yaml);
  return out;
}

function named(list: Decoded[], f: (v: Decoded) => unknown): Decoded {
  return Object.fromEntries(list.map((n) => [n.name, f(n.value ?? {})]));
}

function sorted(o: unknown): unknown {
  if (Array.isArray(o)) return o.map(sorted);
  if (o && typeof o === 'object') return Object.fromEntries(Object.keys(o).sort().map((k) => [k, sorted((o as Decoded)[k])]));
  return o;
}

describe('openApiV2Document', () => {
  const doc = openApiV2Document();

  it('is swagger 2.0 with every definition a $ref names', () => {
    expect(doc.swagger).toBe('2.0');
    const refs = openApiV2Json().match(/"#\/definitions\/[^"]+"/g)!;
    expect(refs.length).toBeGreaterThan(100);
    for (const ref of refs) expect(doc.definitions).toHaveProperty([ref.slice(15, -1)]);
    expect(openApiV2Json()).not.toContain('#/components/');
  });

  it('keeps $ref siblings as swagger does (no allOf) and restores descriptions', () => {
    const pod = doc.definitions['io.k8s.api.core.v1.Pod'] as Decoded;
    expect(pod.description).toMatch(/^Pod is a collection of containers/);
    expect(pod['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'Pod', version: 'v1' }]);
    expect(pod.properties.spec).toEqual({ $ref: '#/definitions/io.k8s.api.core.v1.PodSpec', description: expect.stringMatching(/^Specification of the desired behavior of the pod/) });
    // An allOf array, that is: JSONSchemaProps (the CRD type) has a property named allOf.
    expect(openApiV2Json()).not.toMatch(/"allOf":\[/);
  });

  it('keeps swagger\'s plain string types for Quantity and IntOrString', () => {
    expect(doc.definitions['io.k8s.apimachinery.pkg.api.resource.Quantity']).toMatchObject({ type: 'string' });
    expect(doc.definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString']).toMatchObject({ type: 'string', format: 'int-or-string' });
  });

  it('has the union of the v3 documents\' components', () => {
    for (const [group, version] of [['', 'v1'], ['apps', 'v1'], ['coordination.k8s.io', 'v1']] as const) {
      for (const name of Object.keys(openApiV3Document(group, version)!.components.schemas)) expect(doc.definitions).toHaveProperty([name]);
    }
  });

  it('converts operations to swagger: body parameter, inline parameter types, consumes and produces', () => {
    const item = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']!;
    expect(item.parameters).toContainEqual({ name: 'namespace', in: 'path', description: expect.any(String), required: true, type: 'string', uniqueItems: true });
    const patch = item.patch;
    expect(patch.consumes).toEqual(['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
    expect(patch.produces).toEqual(['application/json']);
    expect(patch.parameters[0]).toEqual({ in: 'body', name: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' } });
    expect(patch.parameters).toContainEqual({ name: 'fieldValidation', in: 'query', description: expect.any(String), type: 'string', uniqueItems: true });
    expect(patch.responses['200']).toEqual({ description: 'OK', schema: { $ref: '#/definitions/io.k8s.api.apps.v1.Deployment' } });
    expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(item.get.consumes).toEqual(['*/*']);
    expect(item.delete.parameters[0]).toEqual({ in: 'body', name: 'body', schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions' } });
  });
});

describe('openApiV2Protobuf', () => {
  const bytes = openApiV2Protobuf();
  const decoded = decode(bytes, Document);
  const json = openApiV2Document();

  it('encodes swagger and info', () => {
    expect(decoded.swagger).toBe('2.0');
    expect(decoded.info).toEqual({ title: 'Kubernetes', version: json.info.version });
  });

  it('round-trips every definition, in order', () => {
    const defs = decoded.definitions.additional_properties as Decoded[];
    expect(defs.map((d) => d.name)).toEqual(Object.keys(json.definitions));
    for (const d of defs) expect(sorted(toSwagger(d.value)), d.name).toEqual(sorted(json.definitions[d.name]));
  });

  it('encodes PATCH operations with consumes and the GVK extension kubectl GetConsumes reads', () => {
    const paths = decoded.paths.path as Decoded[];
    expect(paths.map((p) => p.name)).toEqual(Object.keys(json.paths));
    const deployment = paths.find((p) => p.name === '/apis/apps/v1/namespaces/{namespace}/deployments/{name}')!.value;
    expect(deployment.patch.consumes).toContain('application/strategic-merge-patch+json');
    const gvk = deployment.patch.vendor_extension.find((e: Decoded) => e.name === 'x-kubernetes-group-version-kind');
    expect(JSON.parse(gvk.value.yaml)).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(deployment.patch.parameters[0].parameter.body).toEqual({
      name: 'body', in: 'body', required: true, schema: { _ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' },
    });
    expect(deployment.parameters.map((p: Decoded) => p.parameter.non_body.path?.name ?? p.parameter.non_body.query?.name)).toEqual(['name', 'namespace', 'pretty']);
    const ok = deployment.patch.responses.response_code.find((c: Decoded) => c.name === '200');
    expect(ok.value.response).toEqual({ description: 'OK', schema: { schema: { _ref: '#/definitions/io.k8s.api.apps.v1.Deployment' } } });
  });

  it('is built once', () => {
    expect(openApiV2Protobuf()).toBe(bytes);
  });

  it('names a content type Go mime.ParseMediaType accepts (no "@")', () => {
    expect(OPENAPI_V2_PROTOBUF_CONTENT_TYPE).toMatch(/^application\/[\w.+-]+$/);
  });
});

describe('negotiateOpenApiV2', () => {
  it.each([
    [undefined, 'json'],
    ['', 'json'],
    ['application/json', 'json'],
    ['*/*', 'json'],
    ['application/*', 'json'],
    ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'protobuf'],
    ['application/com.github.proto-openapi.spec.v2.v1.0+protobuf', 'protobuf'],
    ['application/json;q=0.5, application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'protobuf'],
    ['text/html, application/json;q=0.9', 'json'],
    ['application/json;q=0, application/com.github.proto-openapi.spec.v2.v1.0+protobuf;q=0.1', 'protobuf'],
    ['text/html', undefined],
    ['application/yaml', undefined],
  ])('Accept %j → %s', (accept, form) => {
    expect(negotiateOpenApiV2(accept)).toBe(form);
  });
});

describe('CRD definitions in /openapi/v2', () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.v2.example.com', uid: 'w-uid', resourceVersion: '7' },
    spec: {
      group: 'v2.example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{
        name: 'v1', served: true, storage: true, subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object', description: 'A widget.',
            properties: {
              spec: {
                type: 'object', required: ['size', 'note'],
                properties: {
                  size: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
                  name: { type: 'string', maxLength: 63, pattern: '^[a-z]+$', enum: ['a', 'b'] },
                  note: { type: 'string', nullable: true },
                  port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                  address: { type: 'object', oneOf: [{ required: ['ip'] }, { required: ['host'] }], properties: { ip: { type: 'string' }, host: { type: 'string' } } },
                  free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { x: { type: 'string' } } },
                  template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } },
                  ratio: { type: 'number', multipleOf: 0.5 },
                },
                'x-kubernetes-validations': [{ rule: 'self.size > 0' }],
              },
            },
          },
        },
      }],
    },
    status: { acceptedNames: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' }, conditions: [{ type: 'Established', status: 'True' }] },
  } as unknown as Crd;
  const before = openApiV2Document();

  it('lists each served version\'s kind and list, with paths, as kube-apiserver\'s aggregated v2 does', () => {
    setCustomTypes(typesFromCrd(crd));
    try {
      const doc = openApiV2Document();
      expect(doc).not.toBe(before);
      const widget = doc.definitions['com.example.v2.v1.Widget'] as Decoded;
      expect(widget['x-kubernetes-group-version-kind']).toEqual([{ group: 'v2.example.com', kind: 'Widget', version: 'v1' }]);
      expect(Object.keys(widget.properties)).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
      expect(widget.properties.metadata).toEqual({ description: expect.stringMatching(/^Standard object's metadata/), $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' });
      const spec = widget.properties.spec;
      // Nullable properties leave `required`; a nullable node loses its type; junctors are gone.
      expect(spec.required).toEqual(['size']);
      expect(spec.properties.note).toEqual({});
      expect(spec.properties.port).toEqual({ 'x-kubernetes-int-or-string': true });
      expect(spec.properties.address).toEqual({ type: 'object', properties: { host: { type: 'string' }, ip: { type: 'string' } } });
      expect(spec.properties.free).toEqual({ 'x-kubernetes-preserve-unknown-fields': true });
      expect(spec.properties.size).toEqual({ type: 'integer', minimum: 1, maximum: 10, default: 3 });
      expect(Object.keys(spec.properties.template.properties)).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
      expect(spec.properties.template.required).toEqual(['kind', 'apiVersion']);
      expect(spec['x-kubernetes-validations']).toEqual([{ rule: 'self.size > 0' }]);
      const list = doc.definitions['com.example.v2.v1.WidgetList'] as Decoded;
      expect(list.properties.items.items).toEqual({ $ref: '#/definitions/com.example.v2.v1.Widget' });
      const item = doc.paths['/apis/v2.example.com/v1/namespaces/{namespace}/widgets/{name}'];
      expect(item.patch.consumes).toEqual(['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
      expect(item.get.responses['200'].schema).toEqual({ $ref: '#/definitions/com.example.v2.v1.Widget' });
      expect(doc.paths['/apis/v2.example.com/v1/namespaces/{namespace}/widgets/{name}/status']).toBeDefined();
      const refs = openApiV2Json().match(/"#\/definitions\/[^"]+"/g)!;
      for (const ref of refs) expect(doc.definitions).toHaveProperty([ref.slice(15, -1)]);
      // The protobuf form kubectl reads carries the same schemas (decoded here from the definitions alone:
      // decoding the whole document is the other tests' job).
      const own = { swagger: '2.0', definitions: { 'com.example.v2.v1.Widget': doc.definitions['com.example.v2.v1.Widget'], 'com.example.v2.v1.WidgetList': doc.definitions['com.example.v2.v1.WidgetList'] } };
      const defs = decode(encodeOpenApiV2Document(own), Document).definitions.additional_properties as Decoded[];
      for (const d of defs) expect(sorted(toSwagger(d.value))).toEqual(sorted(doc.definitions[d.name]));
      expect(Buffer.from(openApiV2Protobuf()).includes(Buffer.from('com.example.v2.v1.WidgetList'))).toBe(true);
      expect(openApiV2Document()).toBe(doc);
    } finally {
      setCustomTypes([]);
    }
    expect(openApiV2Document()).toBe(before);
  }, 60_000);
});
