import { describe, expect, it } from 'vitest';
import type { NameRule } from '../../../core/registry';
import {
  forbidden,
  goQuote,
  invalidValue,
  labelKeyMessages,
  labelValueMessages,
  notSupported,
  required,
  tooLong,
  validateAnnotations,
  validateLabels,
  validateName,
  validatePathSegmentName,
} from '../../../core/validation/names';

const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('validateName', () => {
  it.each<[NameRule, string, string[]]>([
    ['dns1123Subdomain', 'example.com', []],
    ['dns1123Subdomain', 'web-0', []],
    ['dns1123Subdomain', '0', []],
    ['dns1123Subdomain', 'a'.repeat(253), []],
    ['dns1123Subdomain', 'a'.repeat(254), ['must be no more than 253 characters']],
    ['dns1123Subdomain', 'Foo_', [SUBDOMAIN]],
    ['dns1123Subdomain', '-web', [SUBDOMAIN]],
    ['dns1123Subdomain', 'web.', [SUBDOMAIN]],
    ['dns1123Subdomain', '', [SUBDOMAIN]],
    ['dns1123Subdomain', `${'A'.repeat(254)}`, ['must be no more than 253 characters', SUBDOMAIN]],
    ['dns1123Label', 'kube-system', []],
    ['dns1123Label', '1abc', []],
    ['dns1123Label', 'a'.repeat(63), []],
    ['dns1123Label', 'a'.repeat(64), ['must be no more than 63 characters']],
    ['dns1123Label', 'team.a', ['must not contain dots']],
    ['dns1123Label', 'Team', [LABEL]],
    ['dns1123Label', 'team_a.b', [LABEL]],
    ['dns1035Label', 'my-svc', []],
    ['dns1035Label', '1svc', [DNS1035]],
    ['dns1035Label', 'my.svc', [DNS1035]],
    ['dns1035Label', `a${'1'.repeat(63)}`, ['must be no more than 63 characters']],
    // Lengths are in UTF-8 bytes, as Go's len() counts them.
    ['dns1123Label', 'é'.repeat(32), ['must be no more than 63 characters', LABEL]],
  ])('%s %j', (rule, name, messages) => {
    expect(validateName(rule, name)).toEqual(messages);
  });

  it.each<[NameRule, string, string[]]>([
    // A generateName may end in '-' because a random suffix follows.
    ['dns1123Subdomain', 'web-', []],
    ['dns1123Label', 'job-', []],
    ['dns1035Label', 'svc-', []],
    ['dns1123Subdomain', 'web--', []],
    ['dns1123Subdomain', '-', [SUBDOMAIN]],
    ['dns1123Subdomain', 'Web-', [SUBDOMAIN]],
    // apimachinery masks by dropping two bytes, so a name one over the limit still passes.
    ['dns1123Label', `${'a'.repeat(63)}-`, []],
    ['dns1123Label', `${'a'.repeat(64)}-`, ['must be no more than 63 characters']],
    ['dns1123Subdomain', 'é-', [SUBDOMAIN]],
  ])('generateName %s %j', (rule, name, messages) => {
    expect(validateName(rule, name, true)).toEqual(messages);
  });
});

describe('validatePathSegmentName', () => {
  it.each([
    ['web', false, []],
    ['.', false, ["may not be '.'"]],
    ['..', false, ["may not be '..'"]],
    ['a/b', false, ["may not contain '/'"]],
    ['a%b/c', false, ["may not contain '/'", "may not contain '%'"]],
    ['..', true, []],
    ['a/', true, ["may not contain '/'"]],
  ])('%j (prefix %s)', (name, prefix, messages) => {
    expect(validatePathSegmentName(name, prefix)).toEqual(messages);
  });
});

describe('labelKeyMessages and labelValueMessages', () => {
  it.each([
    ['app', []],
    ['example.com/app', []],
    ['app.kubernetes.io/name', []],
    ['Upper_Case.ok', []],
    ['k'.repeat(63), []],
    ['k'.repeat(64), ['name part must be no more than 63 characters']],
    ['', ['name part must be non-empty', NAME_PART]],
    ['example.com/', ['name part must be non-empty', NAME_PART]],
    ['/app', ['prefix part must be non-empty']],
    ['Example.com/app', [`prefix part ${SUBDOMAIN}`]],
    [`${'a'.repeat(254)}/app`, ['prefix part must be no more than 253 characters']],
    ['-app', [NAME_PART]],
  ])('key %j', (key, messages) => {
    expect(labelKeyMessages(key)).toEqual(messages);
  });

  it.each([
    ['', []],
    ['v1.2-rc_3', []],
    ['v'.repeat(63), []],
    ['v'.repeat(64), ['must be no more than 63 characters']],
    ['-v', [LABEL_VALUE]],
    ['a b', [LABEL_VALUE]],
  ])('value %j', (value, messages) => {
    expect(labelValueMessages(value)).toEqual(messages);
  });
});

describe('validateLabels', () => {
  it('reports key and value problems on the map field, echoing the offending string', () => {
    expect(validateLabels({ ok: 'fine', '-bad': 'also bad!' }, 'metadata.labels')).toEqual([
      { reason: 'FieldValueInvalid', field: 'metadata.labels', message: `Invalid value: "-bad": ${NAME_PART}` },
      { reason: 'FieldValueInvalid', field: 'metadata.labels', message: `Invalid value: "also bad!": ${LABEL_VALUE}` },
    ]);
  });

  it.each([undefined, null, {}])('accepts %j', (labels) => {
    expect(validateLabels(labels, 'metadata.labels')).toEqual([]);
  });
});

describe('validateAnnotations', () => {
  it('checks keys case-insensitively but echoes them as written', () => {
    expect(validateAnnotations({ 'Example.COM/Key': 'x' }, 'metadata.annotations')).toEqual([]);
    expect(validateAnnotations({ 'Bad Key': 'x' }, 'metadata.annotations')).toEqual([
      { reason: 'FieldValueInvalid', field: 'metadata.annotations', message: `Invalid value: "Bad Key": ${NAME_PART}` },
    ]);
  });

  it.each([
    [256 * 1024 - 1, []],
    [256 * 1024, [{ reason: 'FieldValueTooLong', field: 'metadata.annotations', message: 'Too long: may not be more than 262144 bytes' }]],
  ])('value of %i bytes plus a 1-byte key', (valueBytes, causes) => {
    expect(validateAnnotations({ k: 'v'.repeat(valueBytes) }, 'metadata.annotations')).toEqual(causes);
  });

  it('counts annotation size in UTF-8 bytes', () => {
    expect(validateAnnotations({ k: 'é'.repeat(131072) }, 'metadata.annotations')).toHaveLength(1);
  });
});

describe('cause builders', () => {
  it.each([
    [invalidValue('metadata.name', 'Foo_', 'bad'), { reason: 'FieldValueInvalid', field: 'metadata.name', message: 'Invalid value: "Foo_": bad' }],
    [invalidValue('spec.replicas', -1, 'must be greater than or equal to 0'), { reason: 'FieldValueInvalid', field: 'spec.replicas', message: 'Invalid value: -1: must be greater than or equal to 0' }],
    [invalidValue('spec.paused', true, 'x'), { reason: 'FieldValueInvalid', field: 'spec.paused', message: 'Invalid value: true: x' }],
    [invalidValue('values', [], 'x'), { reason: 'FieldValueInvalid', field: 'values', message: 'Invalid value: []string(nil): x' }],
    [invalidValue('values', ['a', 'b'], 'x'), { reason: 'FieldValueInvalid', field: 'values', message: 'Invalid value: []string{"a", "b"}: x' }],
    [invalidValue('spec', null, 'x'), { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: null: x' }],
    [invalidValue('spec', { a: 1 }, 'x'), { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: {"a":1}: x' }],
    [required('metadata.name', 'name or generateName is required'), { reason: 'FieldValueRequired', field: 'metadata.name', message: 'Required value: name or generateName is required' }],
    [required('metadata.namespace'), { reason: 'FieldValueRequired', field: 'metadata.namespace', message: 'Required value' }],
    [forbidden('metadata.namespace', 'not allowed on this type'), { reason: 'FieldValueForbidden', field: 'metadata.namespace', message: 'Forbidden: not allowed on this type' }],
    [tooLong('metadata.annotations', 262144), { reason: 'FieldValueTooLong', field: 'metadata.annotations', message: 'Too long: may not be more than 262144 bytes' }],
    [notSupported('spec.type', 'Foo', ['ClusterIP', 'NodePort']), { reason: 'FieldValueNotSupported', field: 'spec.type', message: 'Unsupported value: "Foo": supported values: "ClusterIP", "NodePort"' }],
  ])('%j', (cause, expected) => {
    expect(cause).toEqual(expected);
  });
});

describe('goQuote', () => {
  it.each([
    ['plain', '"plain"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['back\\slash', '"back\\\\slash"'],
    ['tab\tnew\nline\r', '"tab\\tnew\\nline\\r"'],
    ['\x00\x1b\x7f', '"\\x00\\x1b\\x7f"'],
    ['\u0085\u00a0', '"\\u0085\\u00a0"'],
    ['héllo 世界 🙂', '"héllo 世界 🙂"'],
    ['\u{e0001}', '"\\U000e0001"'],
  ])('%j quotes as %s', (input, quoted) => {
    expect(goQuote(input)).toBe(quoted);
  });
});
