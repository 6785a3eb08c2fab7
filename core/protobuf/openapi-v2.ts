// Core: encodes a Swagger 2.0 document (as JSON) as gnostic's openapi_v2.Document protobuf, the form kubectl asks
// /openapi/v2 for (Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf) and unmarshals with
// google.golang.org/protobuf into gnostic-models openapiv2 types. Field numbers from gnostic openapiv2/OpenAPIv2.proto.
// Covers the subset kube-apiserver's document uses: info, paths (operations, query/path/body parameters, responses)
// and definitions (Schema with ref, format, description, required, type, items, properties, additionalProperties,
// allOf and x-* vendor extensions, and the value validations, default, enum and example of CRD schemas). A key
// outside that throws (the built-in part is static, so the unit tests catch it; CRD schemas are converted to this
// subset first, core/crd/openapi.ts).

import { ProtoWriter } from './writer';

type Json = Record<string, any>;

export function encodeOpenApiV2Document(doc: Json): Uint8Array {
  const w = new ProtoWriter();
  w.string(1, doc.swagger);
  if (doc.info) w.message(2, (i) => i.string(1, doc.info.title).string(2, doc.info.version));
  if (doc.paths) w.message(8, (p) => paths(p, doc.paths));
  if (doc.definitions) w.message(9, (d) => namedSchemas(d, doc.definitions));
  return w.finish();
}

/** `repeated NamedAny vendor_extension`: each x-* key, its value as YAML (JSON is a YAML subset). */
function vendorExtensions(w: ProtoWriter, field: number, o: Json): void {
  for (const [key, value] of Object.entries(o)) {
    if (!key.startsWith('x-')) continue;
    w.message(field, (named) => named.string(1, key).message(2, (any) => any.string(2, `${JSON.stringify(value)}\n`)));
  }
}

function unsupported(what: string, key: string): never {
  throw new Error(`openapi v2 protobuf: ${what} field "${key}" is not encoded`);
}

// ---- paths ----

const METHOD_FIELDS: Record<string, number> = { get: 2, put: 3, post: 4, delete: 5, options: 6, head: 7, patch: 8 };
const OPERATION_KEYS = new Set(['tags', 'description', 'operationId', 'produces', 'consumes', 'parameters', 'responses', 'schemes']);

function paths(w: ProtoWriter, p: Json): void {
  for (const [name, item] of Object.entries(p)) w.message(2, (named) => named.string(1, name).message(2, (v) => pathItem(v, item)));
}

function pathItem(w: ProtoWriter, item: Json): void {
  for (const [key, value] of Object.entries(item)) {
    if (key in METHOD_FIELDS) w.message(METHOD_FIELDS[key]!, (op) => operation(op, value));
    else if (key === 'parameters') for (const p of value) w.message(9, (pi) => parametersItem(pi, p));
    else if (!key.startsWith('x-')) unsupported('PathItem', key);
  }
  vendorExtensions(w, 10, item);
}

function operation(w: ProtoWriter, op: Json): void {
  for (const key of Object.keys(op)) if (!OPERATION_KEYS.has(key) && !key.startsWith('x-')) unsupported('Operation', key);
  w.strings(1, op.tags).string(3, op.description).string(5, op.operationId).strings(6, op.produces).strings(7, op.consumes);
  for (const p of op.parameters ?? []) w.message(8, (pi) => parametersItem(pi, p));
  if (op.responses) w.message(9, (r) => responses(r, op.responses));
  w.strings(10, op.schemes);
  vendorExtensions(w, 13, op);
}

/** ParametersItem{parameter: Parameter{body_parameter | non_body_parameter{query | path sub-schema}}}. */
function parametersItem(w: ProtoWriter, p: Json): void {
  w.message(1, (parameter) => {
    if (p.in === 'body') {
      parameter.message(1, (b) => {
        b.string(1, p.description).string(2, p.name).string(3, p.in).bool(4, p.required);
        if (p.schema) b.message(5, (s) => schema(s, p.schema));
      });
      return;
    }
    const choice = p.in === 'query' ? 3 : p.in === 'path' ? 4 : unsupported('Parameter', `in: ${p.in}`);
    parameter.message(2, (nonBody) => nonBody.message(choice, (sub) => {
      sub.bool(1, p.required).string(2, p.in).string(3, p.description).string(4, p.name);
      // QueryParameterSubSchema has allow_empty_value = 5 before type; PathParameterSubSchema does not.
      if (choice === 3) sub.string(6, p.type).string(7, p.format).bool(20, p.uniqueItems);
      else sub.string(5, p.type).string(6, p.format).bool(19, p.uniqueItems);
    }));
  });
}

/** Responses{response_code: NamedResponseValue{name, ResponseValue{response: Response{description, SchemaItem}}}}. */
function responses(w: ProtoWriter, r: Json): void {
  for (const [code, value] of Object.entries(r)) {
    w.message(1, (named) => named.string(1, code).message(2, (rv) => rv.message(1, (response) => {
      response.string(1, value.description);
      if (value.schema) response.message(2, (item) => item.message(1, (s) => schema(s, value.schema)));
    })));
  }
}

// ---- schemas ----

/** Definitions and Properties share one shape: `repeated NamedSchema additional_properties = 1`. */
function namedSchemas(w: ProtoWriter, m: Record<string, Json>): void {
  for (const [name, s] of Object.entries(m)) w.message(1, (named) => named.string(1, name).message(2, (v) => schema(v, s)));
}

/** `Any { string yaml = 2 }`: the value as YAML (JSON is a YAML subset). */
function any(w: ProtoWriter, field: number, v: unknown): void {
  w.message(field, (a) => a.string(2, `${JSON.stringify(v)}\n`));
}

function double(w: ProtoWriter, field: number, v: number): void {
  w.tag(field, 1); // fixed64
  w.fixed(8, (view) => view.setFloat64(0, v, true));
}

function int64(w: ProtoWriter, field: number, v: number): void {
  w.tag(field, 0); // varint
  w.svarint(v);
}

function schema(w: ProtoWriter, s: Json): void {
  for (const [key, v] of Object.entries(s)) {
    switch (key) {
      case '$ref': w.string(1, v); break;
      case 'format': w.string(2, v); break;
      case 'title': w.string(3, v); break;
      case 'description': w.string(4, v); break;
      case 'default': any(w, 5, v); break;
      case 'multipleOf': double(w, 6, v); break;
      case 'maximum': double(w, 7, v); break;
      case 'exclusiveMaximum': w.bool(8, v); break;
      case 'minimum': double(w, 9, v); break;
      case 'exclusiveMinimum': w.bool(10, v); break;
      case 'maxLength': int64(w, 11, v); break;
      case 'minLength': int64(w, 12, v); break;
      case 'pattern': w.string(13, v); break;
      case 'maxItems': int64(w, 14, v); break;
      case 'minItems': int64(w, 15, v); break;
      case 'uniqueItems': w.bool(16, v); break;
      case 'maxProperties': int64(w, 17, v); break;
      case 'minProperties': int64(w, 18, v); break;
      case 'enum': for (const e of v) any(w, 20, e); break;
      case 'example': any(w, 30, v); break;
      case 'required': w.strings(19, v); break;
      case 'additionalProperties':
        // AdditionalPropertiesItem is a oneof: schema = 1, boolean = 2.
        w.message(21, (ap) => (typeof v === 'boolean' ? ap.bool(2, v, true) : ap.message(1, (sub) => schema(sub, v))));
        break;
      case 'type': w.message(22, (t) => t.strings(1, Array.isArray(v) ? v : [v])); break;
      case 'items':
        w.message(23, (items) => { for (const item of Array.isArray(v) ? v : [v]) items.message(1, (sub) => schema(sub, item)); });
        break;
      case 'allOf': for (const sub of v) w.message(24, (x) => schema(x, sub)); break;
      case 'properties': w.message(25, (props) => namedSchemas(props, v)); break;
      case 'readOnly': w.bool(27, v); break;
      default: if (!key.startsWith('x-')) unsupported('Schema', key);
    }
  }
  vendorExtensions(w, 31, s);
}
