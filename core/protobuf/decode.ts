// Core: decodes Kubernetes protobuf request bodies (application/vnd.kubernetes.protobuf) into the JSON object the
// same Go type would marshal to, so the rest of the server only ever sees JSON.
//
// Why: kubectl's typed clients (create namespace/configmap/secret/deployment/..., create token, auth can-i) send
// protobuf and client-go does not retry as JSON on 415, so these requests only work if we can read them.
//
// Envelope (apimachinery pkg/runtime/serializer/protobuf): the 4 magic bytes "k8s\0", then a runtime.Unknown
// {typeMeta{apiVersion=1,kind=2}=1, raw=2, contentEncoding=3, contentType=4} whose raw is the object's message.
// Messages are proto2 as written by gogo-protobuf; schemas come from schema.generated.ts.

import { MalformedProtobuf, ProtobufTooLarge, UnsupportedProtobufKind } from './errors';
import { jsonDepthError, MAX_JSON_DEPTH } from '../encoding/json-depth';
import { LIST_WRAPPERS, MESSAGES } from './schema.generated';
import { listMessageSpec, messageKeyFor, RESPONSE_MESSAGES } from './response-schema';
import { ProtoReader, WireType } from './wire';

export { MalformedProtobuf, ProtobufTooLarge, UnsupportedProtobufKind } from './errors';

export const PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';

const MAGIC = [0x6b, 0x38, 0x73, 0x00]; // "k8s\0"

/** True when the body starts with Kubernetes' protobuf magic prefix. */
export function isProtobufBody(bytes: Uint8Array): boolean {
  return bytes.length >= MAGIC.length && MAGIC.every((b, i) => bytes[i] === b);
}

// ---- limits ----
//
// Protobuf is denser than JSON: a 2-byte empty sub-message becomes an object, a 2-byte field a
// `"terminationMessagePolicy":...` member, so a body within the 3 MiB request limit could decode to
// hundreds of MB. Go's decoder has the same amplification but no single-threaded store behind it;
// here one decode must stay proportional to what a JSON client may send. Beyond a limit: 413
// (ProtobufTooLarge), worded as the request body limit, or 400 for nesting (MalformedProtobuf).

/** The decoded JSON may not exceed what a JSON body may be: apiserver MaxRequestBodyBytes (3 MiB). */
export const MAX_DECODED_JSON_BYTES = 3 * 1024 * 1024;
/**
 * Messages (each a Map while decoding) per body. Memory-driven: 2^17 messages stay in the tens of MB.
 * No storable object comes near: the largest lists kube allows are around a thousand entries
 * (EndpointSlice endpoints ≤ 1000), and etcd's 1.5 MiB limit caps everything else.
 */
export const MAX_DECODED_MESSAGES = 1 << 17;

/** What one decode has spent; every nested envelope and embedded JSON shares it. */
class DecodeBudget {
  private messages = 0;
  private bytes = 0;
  depth = 0;

  /** A new message (a State) is about to be created. */
  message(): void {
    if (++this.messages > MAX_DECODED_MESSAGES) throw tooLarge();
  }

  /** At least `n` more bytes of JSON output. */
  output(n: number): void {
    this.bytes += n;
    if (this.bytes > MAX_DECODED_JSON_BYTES) throw tooLarge();
  }

  /** One level deeper (message nesting or embedded envelope); the JSON depth limit applies. */
  enter(): void {
    if (++this.depth > MAX_JSON_DEPTH) throw new MalformedProtobuf(`nested deeper than ${MAX_JSON_DEPTH} levels`);
  }

  leave(): void {
    this.depth--;
  }
}

function tooLarge(): ProtobufTooLarge {
  return new ProtobufTooLarge(`limit is ${MAX_DECODED_JSON_BYTES}`);
}

/**
 * Decodes an enveloped protobuf body into its JSON object, `kind` and `apiVersion` taken from the envelope.
 * Throws UnsupportedProtobufKind for a kind without a schema, MalformedProtobuf for bytes that do not parse,
 * ProtobufTooLarge for a body that would decode past the limits above.
 */
export function protobufToJson(bytes: Uint8Array): Record<string, unknown> {
  const budget = new DecodeBudget();
  // The outermost envelope is the wire's wrapper, not a level of the object: an object as deep as the JSON gate
  // admits (core/encoding/json-depth.ts) decodes from protobuf too, as a client that read it so sends it back.
  budget.depth = -1;
  return decodeEnvelope(bytes, budget);
}

function decodeEnvelope(bytes: Uint8Array, budget: DecodeBudget): Record<string, unknown> {
  if (!isProtobufBody(bytes)) throw new MalformedProtobuf('missing the "k8s\\0" protobuf prefix');
  budget.enter();
  const unknown = decodeInto(new Map(), bytes.subarray(MAGIC.length), messageDef('runtime.Unknown'), budget);
  const typeMeta = unknown.get(1) as State | undefined;
  const apiVersion = (typeMeta?.get(1) as string | undefined) ?? '';
  const kind = (typeMeta?.get(2) as string | undefined) ?? '';
  const raw = (unknown.get(2) as Uint8Array | undefined) ?? new Uint8Array();
  const contentEncoding = unknown.get(3) as string | undefined;
  const contentType = unknown.get(4) as string | undefined;
  if (contentEncoding) throw new MalformedProtobuf(`unsupported contentEncoding ${JSON.stringify(contentEncoding)}`);
  if (!kind) throw new MalformedProtobuf('the protobuf envelope names no kind');

  // The envelope may carry JSON instead (runtime.Unknown allows it); nothing to decode then.
  if (contentType && contentType !== PROTOBUF_CONTENT_TYPE) {
    if (!/^application\/json\b/.test(contentType)) throw new UnsupportedProtobufKind(apiVersion, kind);
    const obj = parseJson(raw, 'raw', budget, budget.depth);
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
      throw new MalformedProtobuf('raw is not a JSON object');
    }
    budget.leave();
    return { kind, apiVersion, ...(obj as Record<string, unknown>) };
  }

  // DeleteOptions is registered in every group version, so it may arrive as apps/v1, batch/v1, v1, ...
  const key = kind === 'DeleteOptions' ? 'meta/v1.DeleteOptions' : messageKeyFor(apiVersion, kind);
  if (!key) throw new UnsupportedProtobufKind(apiVersion, kind);
  const def = messageDef(key);
  budget.message();
  const body = renderMessage(decodeInto(new Map(), raw, def, budget), def, budget) as Record<string, unknown>;
  budget.leave();
  return { kind, apiVersion, ...body };
}

// ---- schema ----

export type ScalarType =
  | 'string' | 'bytes' | 'bool' | 'int32' | 'int64' | 'uint32' | 'uint64' | 'sint32' | 'sint64'
  | 'fixed32' | 'fixed64' | 'sfixed32' | 'sfixed64' | 'double' | 'float';

const SCALARS = new Set<string>([
  'string', 'bytes', 'bool', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64',
  'fixed32', 'fixed64', 'sfixed32', 'sfixed64', 'double', 'float',
]);

/** A value type: a scalar keyword or a message key ("alias.Name"). */
export type ValueType = { scalar: ScalarType } | { message: string };

export interface FieldDef {
  num: number;
  name: string;
  value: ValueType;
  /** Present for map<K,V> fields: the wire form is a repeated entry message {1: key, 2: value}. */
  mapKey?: ScalarType;
  repeated: boolean;
  keepZero: boolean;
  inline: boolean;
}

export interface MessageDef {
  key: string;
  fields: FieldDef[];
  byNum: Map<number, FieldDef>;
  listWrapper: boolean;
}

/** runtime.Unknown/TypeMeta describe the envelope itself, so they live here rather than in the generated data. */
const ENVELOPE: Record<string, string> = {
  'runtime.Unknown': '1:typeMeta:TypeMeta 2:raw:bytes 3:contentEncoding:string 4:contentType:string',
  'runtime.TypeMeta': '1:apiVersion:string 2:kind:string',
};

const defs = new Map<string, MessageDef>();
const listWrappers = new Set(LIST_WRAPPERS);

/** Parses a message's compact schema string on first use (most requests touch a few dozen messages). */
export function messageDef(key: string): MessageDef {
  const cached = defs.get(key);
  if (cached) return cached;
  const spec = MESSAGES[key] ?? ENVELOPE[key] ?? RESPONSE_MESSAGES[key] ?? listMessageSpec(key, MESSAGES);
  if (spec === undefined) throw new Error(`protobuf schema has no message ${key}`);
  const pkg = key.slice(0, key.lastIndexOf('.'));
  const valueType = (t: string): ValueType =>
    SCALARS.has(t) ? { scalar: t as ScalarType } : { message: t.includes('.') ? t : `${pkg}.${t}` };
  const fields = spec
    .split(' ')
    .filter(Boolean)
    .map((entry): FieldDef => {
      const [num, name, type, flags = ''] = entry.split(':') as [string, string, string, string?];
      const map = type.match(/^map<(\w+),([\w./]+)>$/);
      return {
        num: Number(num),
        name,
        value: valueType(map ? map[2]! : type),
        mapKey: map ? (map[1] as ScalarType) : undefined,
        repeated: flags.includes('r'),
        keepZero: flags.includes('z'),
        inline: flags.includes('i'),
      };
    });
  const byNum = new Map(fields.map((f) => [f.num, f]));
  const def: MessageDef = { key, fields, byNum, listWrapper: listWrappers.has(key) };
  defs.set(key, def);
  return def;
}

// ---- wire → state ----

/**
 * Decoded but not yet rendered fields, by field number. Messages stay as nested States until the end because
 * protobuf merges repeated occurrences of a non-repeated message field, and because rendering (Time → string,
 * omitting zeros, inlining) needs the whole message.
 */
type State = Map<number, unknown>;

function decodeInto(state: State, bytes: Uint8Array, def: MessageDef, budget: DecodeBudget): State {
  budget.enter();
  const r = new ProtoReader(bytes);
  while (!r.done) {
    const { field, wire } = r.tag();
    const f = def.byNum.get(field);
    if (!f) {
      r.skip(wire); // a field newer than our schema: ignore, as Go's decoder would keep it unknown
      continue;
    }
    if (f.mapKey) {
      expectWire(wire, WireType.Bytes, def, f);
      // An entry with a message value is a message; a scalar entry renders as at least `"":"",`.
      if ('message' in f.value) budget.message();
      else budget.output(6);
      const [k, v] = decodeMapEntry(r.bytes(), f, budget);
      const entries = (state.get(field) as Map<unknown, unknown> | undefined) ?? new Map();
      entries.set(k, v);
      state.set(field, entries);
    } else if ('message' in f.value) {
      expectWire(wire, WireType.Bytes, def, f);
      const sub = messageDef(f.value.message);
      if (f.repeated) {
        const list = (state.get(field) as State[] | undefined) ?? [];
        budget.message();
        list.push(decodeInto(new Map(), r.bytes(), sub, budget));
        state.set(field, list);
      } else {
        const existing = state.get(field) as State | undefined;
        if (!existing) budget.message();
        state.set(field, decodeInto(existing ?? new Map(), r.bytes(), sub, budget));
      }
    } else if (f.repeated) {
      const list = (state.get(field) as unknown[] | undefined) ?? [];
      const t = f.value.scalar;
      if (wire === WireType.Bytes && t !== 'string' && t !== 'bytes') {
        // Packed repeated numbers: parsers must accept both packed and unpacked encodings.
        const packed = new ProtoReader(r.bytes());
        while (!packed.done) {
          budget.output(2); // each renders as at least "0,"
          list.push(readScalar(packed, t, scalarWire(t), def, f));
        }
      } else {
        budget.output(2);
        list.push(readScalar(r, t, wire, def, f));
      }
      state.set(field, list);
    } else {
      state.set(field, readScalar(r, f.value.scalar, wire, def, f));
    }
  }
  budget.leave();
  return state;
}

function decodeMapEntry(bytes: Uint8Array, f: FieldDef, budget: DecodeBudget): [unknown, unknown] {
  const r = new ProtoReader(bytes);
  let key: unknown = zeroOf(f.mapKey!);
  let value: unknown = 'message' in f.value ? new Map() : zeroOf(f.value.scalar);
  while (!r.done) {
    const { field, wire } = r.tag();
    if (field === 1) key = readScalar(r, f.mapKey!, wire, undefined, f);
    else if (field === 2 && 'message' in f.value) {
      if (wire !== WireType.Bytes) throw new MalformedProtobuf(`map ${f.name}: value has wire type ${wire}`);
      value = decodeInto(value as State, r.bytes(), messageDef(f.value.message), budget);
    } else if (field === 2) value = readScalar(r, (f.value as { scalar: ScalarType }).scalar, wire, undefined, f);
    else r.skip(wire);
  }
  return [key, value];
}

function scalarWire(t: ScalarType): number {
  switch (t) {
    case 'string':
    case 'bytes':
      return WireType.Bytes;
    case 'double':
    case 'fixed64':
    case 'sfixed64':
      return WireType.Fixed64;
    case 'float':
    case 'fixed32':
    case 'sfixed32':
      return WireType.Fixed32;
    default:
      return WireType.Varint;
  }
}

function expectWire(wire: number, want: number, def: MessageDef | undefined, f: FieldDef): void {
  if (wire !== want) {
    throw new MalformedProtobuf(`${def ? `${def.key}.` : ''}${f.name}: wire type ${wire}, expected ${want}`);
  }
}

const utf8 = new TextDecoder(); // not fatal: Go's JSON encoder also replaces invalid UTF-8 with U+FFFD

function readScalar(r: ProtoReader, t: ScalarType, wire: number, def: MessageDef | undefined, f: FieldDef): unknown {
  expectWire(wire, scalarWire(t), def, f);
  switch (t) {
    case 'string':
      return utf8.decode(r.bytes());
    case 'bytes':
      return r.bytes();
    case 'bool':
      return r.bool();
    case 'int32':
      return r.int32();
    case 'int64':
      return r.int64();
    case 'uint32':
      return r.uint32();
    case 'uint64':
      return r.uint64();
    case 'sint32': {
      const n = r.uint32();
      return (n >>> 1) ^ -(n & 1);
    }
    case 'sint64': {
      const n = r.uint64();
      return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
    }
    case 'double':
      return r.fixed64().getFloat64(0, true);
    case 'fixed64':
      return Number(r.fixed64().getBigUint64(0, true));
    case 'sfixed64':
      return Number(r.fixed64().getBigInt64(0, true));
    case 'float':
      return r.fixed32().getFloat32(0, true);
    case 'fixed32':
      return r.fixed32().getUint32(0, true);
    case 'sfixed32':
      return r.fixed32().getInt32(0, true);
  }
}

function zeroOf(t: ScalarType): unknown {
  return t === 'string' ? '' : t === 'bytes' ? new Uint8Array() : t === 'bool' ? false : 0;
}

function isZero(v: unknown): boolean {
  return v === '' || v === 0 || v === false || (v instanceof Uint8Array && v.length === 0);
}

// ---- state → JSON ----

// Every rendered piece charges the budget a lower bound of its JSON size before it is built.
function renderScalar(v: unknown, budget: DecodeBudget): unknown {
  if (v instanceof Uint8Array) {
    budget.output(Math.ceil(v.length / 3) * 4 + 2);
    return base64(v);
  }
  budget.output(typeof v === 'string' ? v.length + 2 : 1);
  return v;
}

function renderValue(v: unknown, type: ValueType, budget: DecodeBudget): unknown {
  return 'message' in type ? renderMessage(v as State, messageDef(type.message), budget) : renderScalar(v, budget);
}

function renderMessage(state: State, def: MessageDef, budget: DecodeBudget): unknown {
  budget.enter();
  const out = renderFields(state, def, budget);
  budget.leave();
  return out;
}

function renderFields(state: State, def: MessageDef, budget: DecodeBudget): unknown {
  budget.output(2);
  const special = SPECIAL[def.key];
  if (special) return special(state, budget);
  if (def.listWrapper) return ((state.get(1) as unknown[] | undefined) ?? []).map((v) => renderScalar(v, budget));

  const out: Record<string, unknown> = {};
  // Schema order is Go struct order, so keys come out in the order encoding/json would write them.
  for (const f of def.fields) {
    if (!state.has(f.num)) continue;
    const v = state.get(f.num);
    budget.output(f.name.length + 3);
    if (f.mapKey) {
      // encoding/json writes map keys sorted. A map is a JSON level of its own, as is a list.
      const entries = [...(v as Map<unknown, unknown>)].sort(([a], [b]) => (String(a) < String(b) ? -1 : 1));
      budget.enter();
      out[f.name] = Object.fromEntries(entries.map(([k, val]) => {
        budget.output(String(k).length + 4);
        return [String(k), renderValue(val, f.value, budget)];
      }));
      budget.leave();
    } else if (f.repeated) {
      budget.enter();
      out[f.name] = (v as unknown[]).map((item) => renderValue(item, f.value, budget));
      budget.leave();
    } else if ('message' in f.value) {
      const rendered = renderMessage(v as State, messageDef(f.value.message), budget);
      if (f.inline && rendered !== null && typeof rendered === 'object') Object.assign(out, rendered);
      else out[f.name] = rendered;
    } else if (f.keepZero || !isZero(v)) {
      // Zero scalars of non-pointer fields are what gogo writes for "unset"; encoding/json omitempty drops them.
      out[f.name] = renderScalar(v, budget);
    }
  }
  return out;
}

/** Types whose JSON form is not their protobuf message (custom MarshalJSON in apimachinery). */
const SPECIAL: Record<string, (s: State, budget: DecodeBudget) => unknown> = {
  // metav1.Time: the zero time is sent as an empty message and marshals to null; RFC 3339, whole seconds, UTC.
  'meta/v1.Time': (s) => (s.size === 0 ? null : rfc3339(num(s.get(1)), num(s.get(2)), false)),
  // metav1.MicroTime: same wire form, RFC 3339 with exactly six fractional digits.
  'meta/v1.MicroTime': (s) => (s.size === 0 ? null : rfc3339(num(s.get(1)), num(s.get(2)), true)),
  'meta/v1.Duration': (s) => goDuration(num(s.get(1))),
  // FieldsV1 and RawExtension carry raw JSON (managedFields, ControllerRevision.data, ...).
  'meta/v1.FieldsV1': (s, budget) => rawJson(s.get(1) as Uint8Array | undefined, budget),
  'runtime.RawExtension': (s, budget) => rawJson(s.get(1) as Uint8Array | undefined, budget),
  // IntOrString {type: 0 int / 1 string, intVal, strVal} marshals to the bare number or string.
  'intstr.IntOrString': (s) => (num(s.get(1)) === 1 ? ((s.get(3) as string | undefined) ?? '') : num(s.get(2))),
  // Quantity is sent in canonical string form already.
  'resource.Quantity': (s) => (s.get(1) as string | undefined) ?? '0',
};

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

function rfc3339(seconds: number, nanos: number, micro: boolean): string {
  // time.Unix normalizes nanos outside [0, 1e9); do the same.
  const carry = Math.floor(nanos / 1e9);
  const s = seconds + carry;
  const ns = nanos - carry * 1e9;
  const d = new Date(s * 1000);
  if (Number.isNaN(d.getTime())) throw new MalformedProtobuf(`timestamp out of range: ${seconds}s`);
  const base = d.toISOString().replace(/\.\d{3}Z$/, '');
  return micro ? `${base}.${String(Math.floor(ns / 1000)).padStart(6, '0')}Z` : `${base}Z`;
}

/** Go's time.Duration.String: "0s", "1.5s", "1m30s", "1h0m0s", "300ms", "1.5µs", "12ns". */
export function goDuration(nanos: number): string {
  if (nanos === 0) return '0s';
  const sign = nanos < 0 ? '-' : '';
  const u = BigInt(Math.abs(Math.trunc(nanos)));
  const frac = (v: bigint, digits: number): string => {
    const scale = 10n ** BigInt(digits);
    const f = (v % scale).toString().padStart(digits, '0').replace(/0+$/, '');
    return f ? `${v / scale}.${f}` : `${v / scale}`;
  };
  if (u < 1_000_000_000n) {
    if (u < 1000n) return `${sign}${u}ns`;
    if (u < 1_000_000n) return `${sign}${frac(u, 3)}µs`;
    return `${sign}${frac(u, 6)}ms`;
  }
  const totalSeconds = u / 1_000_000_000n;
  const secs = frac(u % 60_000_000_000n, 9);
  const minutes = (totalSeconds / 60n) % 60n;
  const hours = totalSeconds / 3600n;
  if (hours > 0n) return `${sign}${hours}h${minutes}m${secs}s`;
  if (minutes > 0n) return `${sign}${minutes}m${secs}s`;
  return `${sign}${secs}s`;
}

function rawJson(raw: Uint8Array | undefined, budget: DecodeBudget): unknown {
  if (raw === undefined || raw.length === 0) return null;
  // An embedded object may itself be protobuf-encoded when the outer object was.
  if (isProtobufBody(raw)) return decodeEnvelope(raw, budget);
  return parseJson(raw, 'embedded raw JSON', budget, budget.depth - 1);
}

// Embedded JSON nests below the levels around it: the depth left is the JSON depth limit less theirs, the
// FieldsV1 or RawExtension message that carries it not counted (in JSON it is the embedded value itself).
function parseJson(raw: Uint8Array, what: string, budget: DecodeBudget, levelsAbove: number): unknown {
  budget.output(raw.length);
  const text = utf8.decode(raw);
  if (jsonDepthError(text, MAX_JSON_DEPTH - levelsAbove)) throw new MalformedProtobuf(`${what} is nested too deep`);
  try {
    return JSON.parse(text);
  } catch {
    throw new MalformedProtobuf(`${what} is not valid JSON`);
  }
}

/** Standard base64 with padding, as encoding/json writes []byte; btoa exists in Workers and Node alike. */
function base64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}
