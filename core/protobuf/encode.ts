// Core: encodes a JSON object into Kubernetes protobuf (application/vnd.kubernetes.protobuf), the inverse
// of decode.ts over the same schemas, so clients that prefer protobuf (client-go's typed clients, kubectl's
// create/scale/auth commands) get what kube-apiserver would send them: "k8s\0", then a runtime.Unknown
// {typeMeta{apiVersion, kind}, raw: the object's message}. Lists and Status errors included.
// Returns undefined for a kind without a schema (or a value that does not fit it); the caller answers JSON.

export { messageKeyFor } from './response-schema';

import { messageKeyFor } from './response-schema';
import { messageDef, type FieldDef, type MessageDef, type ScalarType, type ValueType } from './decode';
import { ProtoWriter } from './writer';
import { WireType } from './wire';

const MAGIC = Uint8Array.from([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"
const utf8 = new TextEncoder();

class Unencodable extends Error {}

export function jsonToProtobuf(obj: Record<string, unknown>): Uint8Array | undefined {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const key = messageKeyFor(apiVersion, kind);
  if (!key) return undefined;
  let raw: Uint8Array;
  try {
    raw = encodeMessage(obj, messageDef(key));
  } catch (e) {
    if (e instanceof Unencodable) return undefined;
    throw e;
  }
  const typeMeta = new ProtoWriter();
  typeMeta.field(1, utf8.encode(apiVersion));
  typeMeta.field(2, utf8.encode(kind));
  const unknown = new ProtoWriter();
  unknown.raw(MAGIC);
  unknown.field(1, typeMeta.finish());
  unknown.field(2, raw);
  unknown.field(3, new Uint8Array()); // contentEncoding, contentType: gogo writes the empty strings too
  unknown.field(4, new Uint8Array());
  return unknown.finish();
}

function encodeMessage(value: unknown, def: MessageDef): Uint8Array {
  const special = SPECIAL[def.key];
  if (special) return special(value);
  const w = new ProtoWriter();
  if (def.listWrapper) {
    for (const item of asArray(value, def.key)) w.field(1, utf8.encode(asString(item, def.key)));
    return w.finish();
  }
  const obj = asObject(value, def.key);
  for (const f of def.fields) {
    if (f.inline) {
      w.field(f.num, encodeMessage(obj, messageDef((f.value as { message: string }).message)));
      continue;
    }
    const v = obj[f.name];
    // null is a nil pointer, slice or map, or a zero Time: absent on the wire reads back the same in Go.
    if (v === undefined || v === null) continue;
    if (f.mapKey) {
      for (const [k, item] of Object.entries(asObject(v, f.name))) {
        if (item === null && 'scalar' in f.value) continue;
        const entry = new ProtoWriter();
        writeValue(entry, 1, { scalar: f.mapKey }, f.mapKey === 'string' ? k : Number(k), f);
        writeValue(entry, 2, f.value, item, f);
        w.field(f.num, entry.finish());
      }
    } else if (f.repeated) {
      for (const item of asArray(v, f.name)) writeValue(w, f.num, f.value, item, f);
    } else {
      writeValue(w, f.num, f.value, v, f);
    }
  }
  return w.finish();
}

function writeValue(w: ProtoWriter, num: number, type: ValueType, v: unknown, f: FieldDef): void {
  if ('message' in type) {
    w.field(num, encodeMessage(v, messageDef(type.message)));
    return;
  }
  writeScalar(w, num, type.scalar, v, f.name);
}

function writeScalar(w: ProtoWriter, num: number, t: ScalarType, v: unknown, name: string): void {
  switch (t) {
    case 'string':
      w.field(num, utf8.encode(asString(v, name)));
      return;
    case 'bytes':
      w.field(num, fromBase64(asString(v, name), name));
      return;
    case 'bool':
      if (typeof v !== 'boolean') throw new Unencodable(`${name}: not a boolean`);
      w.tag(num, WireType.Varint);
      w.uvarint(v ? 1 : 0);
      return;
    case 'int32':
    case 'int64':
      w.tag(num, WireType.Varint);
      w.svarint(asInteger(v, name));
      return;
    case 'uint32':
    case 'uint64': {
      const n = asInteger(v, name);
      if (n < 0) throw new Unencodable(`${name}: negative`);
      w.tag(num, WireType.Varint);
      w.uvarint(n);
      return;
    }
    case 'sint32':
    case 'sint64': {
      const n = asInteger(v, name);
      w.tag(num, WireType.Varint);
      w.uvarint(n >= 0 ? n * 2 : -n * 2 - 1);
      return;
    }
    case 'double':
      w.tag(num, WireType.Fixed64);
      w.fixed(8, (d) => d.setFloat64(0, asNumber(v, name), true));
      return;
    case 'float':
      w.tag(num, WireType.Fixed32);
      w.fixed(4, (d) => d.setFloat32(0, asNumber(v, name), true));
      return;
    case 'fixed32':
      w.tag(num, WireType.Fixed32);
      w.fixed(4, (d) => d.setUint32(0, asInteger(v, name), true));
      return;
    case 'sfixed32':
      w.tag(num, WireType.Fixed32);
      w.fixed(4, (d) => d.setInt32(0, asInteger(v, name), true));
      return;
    case 'fixed64':
      w.tag(num, WireType.Fixed64);
      w.fixed(8, (d) => d.setBigUint64(0, BigInt(asInteger(v, name)), true));
      return;
    case 'sfixed64':
      w.tag(num, WireType.Fixed64);
      w.fixed(8, (d) => d.setBigInt64(0, BigInt(asInteger(v, name)), true));
  }
}

/** Types whose JSON form is not their message (custom MarshalJSON in apimachinery); inverses of decode.ts's. */
const SPECIAL: Record<string, (v: unknown) => Uint8Array> = {
  'meta/v1.Time': (v) => timestamp(v, false),
  'meta/v1.MicroTime': (v) => timestamp(v, true),
  'meta/v1.Duration': (v) => {
    const w = new ProtoWriter();
    w.tag(1, WireType.Varint);
    w.svarint(parseGoDuration(asString(v, 'duration')));
    return w.finish();
  },
  'meta/v1.FieldsV1': rawJson,
  'runtime.RawExtension': rawJson,
  'intstr.IntOrString': (v) => {
    const w = new ProtoWriter();
    if (typeof v === 'number') {
      w.tag(1, WireType.Varint);
      w.uvarint(0);
      w.tag(2, WireType.Varint);
      w.svarint(asInteger(v, 'intOrString'));
    } else {
      w.tag(1, WireType.Varint);
      w.uvarint(1);
      w.field(3, utf8.encode(asString(v, 'intOrString')));
    }
    return w.finish();
  },
  'resource.Quantity': (v) => {
    const w = new ProtoWriter();
    w.field(1, utf8.encode(typeof v === 'number' ? String(v) : asString(v, 'quantity')));
    return w.finish();
  },
};

/** metav1.Time/MicroTime: {seconds = 1, nanos = 2}; a null time is the empty message. */
function timestamp(v: unknown, micro: boolean): Uint8Array {
  const w = new ProtoWriter();
  if (v === null || v === undefined) return w.finish();
  const text = asString(v, 'time');
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(text);
  if (!m) throw new Unencodable(`time ${JSON.stringify(text)}`);
  const ms = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(ms)) throw new Unencodable(`time ${JSON.stringify(text)}`);
  const nanos = micro && m[2] ? Number(m[2].padEnd(9, '0')) : 0;
  w.tag(1, WireType.Varint);
  w.svarint(Math.floor(ms / 1000));
  if (nanos) {
    w.tag(2, WireType.Varint);
    w.svarint(nanos);
  }
  return w.finish();
}

function rawJson(v: unknown): Uint8Array {
  const w = new ProtoWriter();
  if (v !== null && v !== undefined) w.field(1, utf8.encode(JSON.stringify(v)));
  return w.finish();
}

const DURATION_UNITS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Go's time.ParseDuration, for what goDuration writes ("1h0m0s", "1.5s", "300ms"). */
function parseGoDuration(text: string): number {
  if (text === '0') return 0;
  const m = /^([+-]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(text);
  if (!m) throw new Unencodable(`duration ${JSON.stringify(text)}`);
  let total = 0;
  for (const part of text.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) total += Number(part[1]) * DURATION_UNITS[part[2]!]!;
  return Math.round(m[1] === '-' ? -total : total);
}

function asObject(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Unencodable(`${what}: not an object`);
  return v as Record<string, unknown>;
}

function asArray(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new Unencodable(`${what}: not a list`);
  return v;
}

function asString(v: unknown, what: string): string {
  if (typeof v !== 'string') throw new Unencodable(`${what}: not a string`);
  return v;
}

function asNumber(v: unknown, what: string): number {
  if (typeof v !== 'number') throw new Unencodable(`${what}: not a number`);
  return v;
}

function asInteger(v: unknown, what: string): number {
  const n = asNumber(v, what);
  if (!Number.isSafeInteger(n)) throw new Unencodable(`${what}: not an integer`);
  return n;
}

function fromBase64(text: string, what: string): Uint8Array {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    throw new Unencodable(`${what}: not base64`);
  }
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
