import { describe, expect, it } from 'vitest';
import {
  formatLabelSelector,
  matchesLabels,
  parseLabelSelector,
  selectorFromLabelSelector,
  type LabelSelectorSpec,
} from '../../../core/selectors/label-selector';
import { SelectorError } from '../../../core/selectors/selector-error';

const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('parseLabelSelector', () => {
  it.each([
    ['', []],
    ['   ', []],
    ['app=web', [{ key: 'app', operator: 'Equals', values: ['web'] }]],
    ['app==web', [{ key: 'app', operator: 'DoubleEquals', values: ['web'] }]],
    ['app!=web', [{ key: 'app', operator: 'NotEquals', values: ['web'] }]],
    ['app=', [{ key: 'app', operator: 'Equals', values: [''] }]],
    ['app', [{ key: 'app', operator: 'Exists', values: [] }]],
    ['!app', [{ key: 'app', operator: 'DoesNotExist', values: [] }]],
    ['replicas>3', [{ key: 'replicas', operator: 'GreaterThan', values: ['3'] }]],
    ['replicas<3', [{ key: 'replicas', operator: 'LessThan', values: ['3'] }]],
    ['tier in (b,a,b)', [{ key: 'tier', operator: 'In', values: ['a', 'b'] }]],
    ['tier notin (a)', [{ key: 'tier', operator: 'NotIn', values: ['a'] }]],
    // "()" and doubled commas stand for the empty value.
    ['tier in ()', [{ key: 'tier', operator: 'In', values: [''] }]],
    ['tier in (a,,b)', [{ key: 'tier', operator: 'In', values: ['', 'a', 'b'] }]],
    ['tier in (,a)', [{ key: 'tier', operator: 'In', values: ['', 'a'] }]],
    ['tier in (a,)', [{ key: 'tier', operator: 'In', values: ['', 'a'] }]],
    ['x in (in,notin)', [{ key: 'x', operator: 'In', values: ['in', 'notin'] }]],
    ['in=notin', [{ key: 'in', operator: 'Equals', values: ['notin'] }]],
    ['  app = web ,\ttier\nin ( a , b ) ', [
      { key: 'app', operator: 'Equals', values: ['web'] },
      { key: 'tier', operator: 'In', values: ['a', 'b'] },
    ]],
    ['example.com/app-name=v1.2-rc_3', [{ key: 'example.com/app-name', operator: 'Equals', values: ['v1.2-rc_3'] }]],
    // Requirements come back sorted by key, as apimachinery sorts them.
    ['z=1,a=2,!m', [
      { key: 'a', operator: 'Equals', values: ['2'] },
      { key: 'm', operator: 'DoesNotExist', values: [] },
      { key: 'z', operator: 'Equals', values: ['1'] },
    ]],
    [`k=${'v'.repeat(63)}`, [{ key: 'k', operator: 'Equals', values: ['v'.repeat(63)] }]],
  ])('parses %j', (text, requirements) => {
    expect(parseLabelSelector(text)).toEqual({ requirements });
  });

  it.each([
    ['a in b', "unable to parse requirement: found 'b' expected: '('"],
    ['a in', "unable to parse requirement: found '' expected: '('"],
    ['a in (b', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a in (b c)', "unable to parse requirement: found 'c', expected: ',' or ')'"],
    ['a in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['a=b c', "found 'c', expected: ',' or 'end of string'"],
    ['!a=b', "found '=', expected: ',' or 'end of string'"],
    [',a', "found ',', expected: !, identifier, or 'end of string'"],
    ['a,', "found '', expected: identifier after ','"],
    ['a=(', "unable to parse requirement: found '(', expected: identifier"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['app:monolith', `unable to parse requirement: <nil>: Invalid value: "app:monolith": ${NAME_PART}`],
    ['app=-bad', `unable to parse requirement: values[0][app]: Invalid value: "-bad": ${LABEL_VALUE}`],
    [`k=${'v'.repeat(64)}`, `unable to parse requirement: values[0][k]: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`],
    ['t in (ok,-x)', `unable to parse requirement: values[0][t]: Invalid value: "-x": ${LABEL_VALUE}`],
    ['a>1.5', "unable to parse requirement: values[0]: Invalid value: \"1.5\": for 'Gt', 'Lt' operators, the value must be an integer"],
    // Gt/Lt values must also be valid label values, so negative bounds are refused.
    ['a<-3', `unable to parse requirement: values[0][a]: Invalid value: "-3": ${LABEL_VALUE}`],
    ['a>', "unable to parse requirement: values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value must be an integer"],
    [
      'a/b/c=d',
      "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ],
    [
      'app.kubernetes_io/name=x',
      "unable to parse requirement: <nil>: Invalid value: \"app.kubernetes_io/name\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ],
    ['/a=b', `unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty`],
  ])('rejects %j with kube-apiserver\'s message', (text, message) => {
    expect(() => parseLabelSelector(text)).toThrow(new SelectorError(message));
  });

  it('throws SelectorError instances', () => {
    expect(() => parseLabelSelector('a in b')).toThrow(SelectorError);
  });
});

describe('matchesLabels', () => {
  const web = { app: 'web', tier: 'front', replicas: '5' };
  it.each([
    ['', undefined, true],
    ['', web, true],
    ['app=web', web, true],
    ['app==web', web, true],
    ['app=db', web, false],
    ['app=web', undefined, false],
    // Negative requirements are satisfied by objects that lack the label.
    ['app!=db', web, true],
    ['app!=web', web, false],
    ['missing!=x', web, true],
    ['missing notin (a,b)', web, true],
    ['tier notin (front)', web, false],
    ['tier in (back,front)', web, true],
    ['missing in (a)', web, false],
    ['app', web, true],
    ['missing', web, false],
    ['!missing', web, true],
    ['!app', web, false],
    ['app=web,tier=front', web, true],
    ['app=web,tier=back', web, false],
    ['replicas>4', web, true],
    ['replicas>5', web, false],
    ['replicas<6', web, true],
    ['replicas<1', { replicas: '-2' }, true],
    ['replicas>1', { replicas: '+2' }, true],
    ['app>1', web, false],
    ['missing>1', web, false],
    ['replicas>9223372036854775806', { replicas: '9223372036854775807' }, true],
    ['replicas<1', { replicas: '9223372036854775808' }, false],
    ['tier in ()', { tier: '' }, true],
    ['app=', { app: '' }, true],
    ['constructor', {}, false],
    ['!constructor', {}, true],
  ])('%j against %j is %s', (text, labels, expected) => {
    expect(matchesLabels(parseLabelSelector(text), labels)).toBe(expected);
  });
});

describe('selectorFromLabelSelector', () => {
  it.each<[LabelSelectorSpec, Record<string, string>, boolean]>([
    [{}, { any: 'x' }, true],
    [{ matchLabels: { app: 'web' } }, { app: 'web', x: 'y' }, true],
    [{ matchLabels: { app: 'web' } }, { app: 'db' }, false],
    [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }, { tier: 'b' }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['a'] }] }, {}, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, { tier: '' }, true],
    [{ matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, { tier: '' }, false],
    [{ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, { app: 'web' }, false],
  ])('%j against %j is %s', (spec, labels, expected) => {
    expect(matchesLabels(selectorFromLabelSelector(spec), labels)).toBe(expected);
  });

  it.each([null, undefined])('a %s selector matches nothing', (spec) => {
    expect(matchesLabels(selectorFromLabelSelector(spec), {})).toBe(false);
  });

  it.each<[LabelSelectorSpec, string]>([
    [{ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, '"Gt" is not a valid label selector operator'],
    [{ matchExpressions: [{ key: 'a', operator: 'In' }] }, "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, 'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist'],
    [{ matchLabels: { 'Bad Key': 'v' } }, `key: Invalid value: "Bad Key": ${NAME_PART}`],
    [{ matchLabels: { k: 'bad value' } }, `values[0][k]: Invalid value: "bad value": ${LABEL_VALUE}`],
    [
      { matchLabels: { '-k': '-v' } },
      `[key: Invalid value: "-k": ${NAME_PART}, values[0][-k]: Invalid value: "-v": ${LABEL_VALUE}]`,
    ],
  ])('rejects %j', (spec, message) => {
    expect(() => selectorFromLabelSelector(spec)).toThrow(new SelectorError(message));
  });
});

describe('formatLabelSelector', () => {
  it.each<[LabelSelectorSpec | null, string]>([
    [{ matchLabels: { app: 'nginx' } }, 'app=nginx'],
    [{ matchLabels: { tier: 'front', app: 'nginx' } }, 'app=nginx,tier=front'],
    [{ matchExpressions: [{ key: 'app', operator: 'In', values: ['b', 'a'] }] }, 'app in (a,b)'],
    [{ matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['a'] }] }, 'app notin (a)'],
    [{ matchExpressions: [{ key: 'app', operator: 'Exists' }] }, 'app'],
    [{ matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, '!app'],
    [{ matchLabels: { z: '1' }, matchExpressions: [{ key: 'a', operator: 'Exists' }] }, 'a,z=1'],
    [{}, '<none>'],
    [null, '<none>'],
    [{ matchExpressions: [{ key: 'a', operator: 'Bogus' }] }, '<error>'],
  ])('%j prints as %j', (spec, text) => {
    expect(formatLabelSelector(spec)).toBe(text);
  });
});
