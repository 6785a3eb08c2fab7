// Core: object-name, label and annotation validation with apimachinery's exact (v1.32) messages, and the
// field.Error constructors every validator uses so 422 causes read exactly like kube-apiserver's.
import type { NameRule } from '../registry';

export type CauseReason =
  | 'FieldValueInvalid'
  | 'FieldValueRequired'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueNotFound';

/** One field.Error, shaped as kube-apiserver serialises it into a 422 Status's details.causes. */
export interface FieldCause {
  reason: CauseReason;
  message: string;
  field: string;
}

/** metadata.annotations may hold at most this many bytes of keys plus values (objectmeta.go). */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

// ---- field.Error constructors (apimachinery pkg/util/validation/field/errors.go) ----

/** field.Invalid: `Invalid value: "Foo_": <detail>`. */
export function invalidValue(field: string, value: unknown, detail: string): FieldCause {
  return { reason: 'FieldValueInvalid', message: withDetail(`Invalid value: ${formatBadValue(value)}`, detail), field };
}

/** field.Required: `Required value` or `Required value: <detail>`. */
export function required(field: string, detail = ''): FieldCause {
  return { reason: 'FieldValueRequired', message: withDetail('Required value', detail), field };
}

/** field.Forbidden: `Forbidden: <detail>`. */
export function forbidden(field: string, detail: string): FieldCause {
  return { reason: 'FieldValueForbidden', message: withDetail('Forbidden', detail), field };
}

/** field.TooLong as of 1.32: the offending value is never echoed, only the limit. */
export function tooLong(field: string, maxBytes: number): FieldCause {
  const detail = maxBytes >= 0 ? `may not be more than ${maxBytes} bytes` : 'value is too long';
  return { reason: 'FieldValueTooLong', message: `Too long: ${detail}`, field };
}

/** field.NotSupported: `Unsupported value: "x": supported values: "a", "b"`. */
export function notSupported(field: string, value: unknown, supported: readonly string[]): FieldCause {
  const detail = supported.length > 0 ? `supported values: ${supported.map(goQuote).join(', ')}` : '';
  const message = withDetail(`Unsupported value: ${formatBadValue(value)}`, detail);
  return { reason: 'FieldValueNotSupported', message, field };
}

/** field.Duplicate: `Duplicate value: "x"` (kube adds a detail in a few places, e.g. node taints). */
export function duplicate(field: string, value: unknown, detail = ''): FieldCause {
  return { reason: 'FieldValueDuplicate', message: withDetail(`Duplicate value: ${formatBadValue(value)}`, detail), field };
}

/** field.NotFound: `Not found: "x"`. */
export function notFound(field: string, value: unknown): FieldCause {
  return { reason: 'FieldValueNotFound', message: `Not found: ${formatBadValue(value)}`, field };
}

/** field.TooMany: `Too many: 1001: must have at most 1000 items`. */
export function tooMany(field: string, actual: number, max: number): FieldCause {
  return { reason: 'FieldValueTooMany', message: `Too many: ${actual}: must have at most ${max} items`, field };
}

/**
 * A bad value apimachinery prints with Go's %#v (structs, maps): the validator renders the Go text itself
 * (see go-values.ts) and the cause echoes it as is.
 */
export class GoLiteral {
  constructor(readonly text: string) {}
}

function withDetail(body: string, detail: string): string {
  return detail ? `${body}: ${detail}` : body;
}

// ErrorBody in 1.32 prints simple types with %v, strings with %q and the rest with %#v. Of the rest we
// mimic []string (label selector values; apimachinery passes nil when the list is empty) and print
// other objects as JSON, as later apimachinery does, since Go's %#v of a struct has no JS analogue.
function formatBadValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof GoLiteral) return value.text;
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    return value.length === 0 ? '[]string(nil)' : `[]string{${value.map(goQuote).join(', ')}}`;
  }
  return JSON.stringify(value);
}

const SHORT_ESCAPES: Record<string, string> = {
  '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '"': '\\"', '\\': '\\\\',
};
const GO_PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Go's %q (strconv.Quote), which apimachinery uses to echo bad values back to the client. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) out += quoteRune(ch);
  return `${out}"`;
}

function quoteRune(ch: string): string {
  const short = SHORT_ESCAPES[ch];
  if (short) return short;
  const cp = ch.codePointAt(0)!;
  // A lone surrogate cannot survive Go's JSON decoding; it arrives as U+FFFD.
  if (cp >= 0xd800 && cp <= 0xdfff) return '\ufffd';
  if (GO_PRINTABLE.test(ch)) return ch;
  if (cp < 0x20 || cp === 0x7f) return `\\x${hex(cp, 2)}`;
  return cp < 0x10000 ? `\\u${hex(cp, 4)}` : `\\U${hex(cp, 8)}`;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** Go measures names and values with len(), i.e. in UTF-8 bytes. */
export function utf8Length(s: string): number {
  let n = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    n += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  }
  return n;
}

// ---- message builders (pkg/util/validation/validation.go) ----

function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  // The doubled space before "or" is apimachinery's own: each example ends with "', " and " or " follows.
  const shown = examples.map((e) => `'${e}', `).join(' or ');
  return `${msg} (e.g. ${shown}regex used for validation is '${fmt}')`;
}

const anchored = (fmt: string): RegExp => new RegExp(`^${fmt}$`);

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;

const DNS1123_LABEL = anchored(DNS1123_LABEL_FMT);
const DNS1123_SUBDOMAIN = anchored(DNS1123_SUBDOMAIN_FMT);
const DNS1035_LABEL = anchored(DNS1035_LABEL_FMT);
const QUALIFIED_NAME = anchored(QUALIFIED_NAME_FMT);
const LABEL_VALUE = anchored(LABEL_VALUE_FMT);

const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const DNS1123_LABEL_ERROR = regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc');
const DNS1123_SUBDOMAIN_ERROR = regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com');
const DNS1035_LABEL_ERROR = regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, 'my-name', 'abc-123');
const QUALIFIED_NAME_ERROR = regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc');
const LABEL_VALUE_ERROR = regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345');

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL.test(value)) {
    // Length was already reported, so a valid subdomain that is not a valid label can only be the dots.
    errs.push(DNS1123_SUBDOMAIN.test(value) ? 'must not contain dots' : DNS1123_LABEL_ERROR);
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > 253) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN.test(value)) errs.push(DNS1123_SUBDOMAIN_ERROR);
  return errs;
}

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > 63) errs.push(maxLenError(63));
  if (!DNS1035_LABEL.test(value)) errs.push(DNS1035_LABEL_ERROR);
  return errs;
}

const NAME_CHECKS: Record<NameRule, (value: string) => string[]> = {
  dns1123Subdomain: isDNS1123Subdomain,
  dns1123Label: isDNS1123Label,
  dns1035Label: isDNS1035Label,
  // RBAC names (ValidateRBACName = path.IsValidPathSegmentName).
  path: (value) => validatePathSegmentName(value),
};

/**
 * Messages for an object name under a type's rule (apimachinery NameIsDNSSubdomain and friends).
 * `prefix` is true for metadata.generateName, whose trailing dash is allowed because a suffix follows.
 */
export function validateName(rule: NameRule, name: string, prefix = false): string[] {
  return NAME_CHECKS[rule](prefix ? maskTrailingDash(name) : name);
}

// apimachinery drops the last *two* bytes and appends "a"; reproduced because it decides which names
// pass. When the byte before the dash belongs to a multi-byte character Go leaves broken UTF-8 that no
// regex accepts, so keeping that character (and the byte count, len-1) gives the same verdict.
function maskTrailingDash(name: string): string {
  if (name.length <= 1 || !name.endsWith('-')) return name;
  return name.charCodeAt(name.length - 2) < 0x80 ? `${name.slice(0, -2)}a` : name.slice(0, -1);
}

/** Names that become URL path segments (api/validation/path/name.go); `prefix` for generateName. */
export function validatePathSegmentName(name: string, prefix = false): string[] {
  if (!prefix && (name === '.' || name === '..')) return [`may not be '${name}'`];
  return ['/', '%'].filter((bad) => name.includes(bad)).map((bad) => `may not contain '${bad}'`);
}

/** validation.IsQualifiedName: the rule for label keys, annotation keys and finalizers. */
export function labelKeyMessages(key: string): string[] {
  const parts = key.split('/');
  if (parts.length > 2) {
    return [
      `a qualified name ${QUALIFIED_NAME_ERROR} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  const errs: string[] = [];
  const name = parts[parts.length - 1];
  if (parts.length === 2) {
    const prefix = parts[0];
    if (prefix === '') errs.push('prefix part must be non-empty');
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (utf8Length(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!QUALIFIED_NAME.test(name)) errs.push(`name part ${QUALIFIED_NAME_ERROR}`);
  return errs;
}

/** validation.IsValidLabelValue: empty, or at most 63 bytes of [A-Za-z0-9_.-] starting and ending alphanumeric. */
export function labelValueMessages(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > 63) errs.push(maxLenError(63));
  if (!LABEL_VALUE.test(value)) errs.push(LABEL_VALUE_ERROR);
  return errs;
}

/** metav1 validation.ValidateLabels: every cause is reported on the map itself, not on the key. */
export function validateLabels(labels: unknown, fieldPath: string): FieldCause[] {
  const causes: FieldCause[] = [];
  for (const [key, value] of stringMapEntries(labels, fieldPath, causes)) {
    for (const msg of labelKeyMessages(key)) causes.push(invalidValue(fieldPath, key, msg));
    for (const msg of labelValueMessages(value)) causes.push(invalidValue(fieldPath, value, msg));
  }
  return causes;
}

/** ValidateAnnotations: keys are qualified names compared case-insensitively; total size is capped. */
export function validateAnnotations(annotations: unknown, fieldPath: string): FieldCause[] {
  const causes: FieldCause[] = [];
  let totalBytes = 0;
  for (const [key, value] of stringMapEntries(annotations, fieldPath, causes)) {
    for (const msg of labelKeyMessages(key.toLowerCase())) causes.push(invalidValue(fieldPath, key, msg));
    totalBytes += utf8Length(key) + utf8Length(value);
  }
  if (totalBytes > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) {
    causes.push(tooLong(fieldPath, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  }
  return causes;
}

/**
 * The entries of a map[string]string. A body the decoder let through with another shape (a list, a
 * number value) would be a 400 in Go; here it is one Invalid cause and the bad entries are skipped.
 */
export function stringMapEntries(map: unknown, fieldPath: string, causes: FieldCause[]): [string, string][] {
  if (map === undefined || map === null) return [];
  if (typeof map !== 'object' || Array.isArray(map)) {
    causes.push(invalidValue(fieldPath, map, 'must be of type object'));
    return [];
  }
  const entries: [string, string][] = [];
  for (const [key, value] of Object.entries(map)) {
    if (typeof value === 'string') entries.push([key, value]);
    else if (value !== null) causes.push(invalidValue(`${fieldPath}[${key}]`, value, 'must be of type string'));
  }
  return entries;
}
