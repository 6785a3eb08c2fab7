import { describe, expect, it } from 'vitest';
import { matchesFields, parseFieldSelector, requiredValue } from '../../../core/selectors/field-selector';
import { SelectorError } from '../../../core/selectors/selector-error';

describe('parseFieldSelector', () => {
  it.each([
    ['', []],
    [',', []],
    // A term empty on both sides is dropped, as apimachinery's Transform does.
    ['=', []],
    ['metadata.name=web', [{ field: 'metadata.name', operator: 'Equals', value: 'web' }]],
    ['metadata.name==web', [{ field: 'metadata.name', operator: 'Equals', value: 'web' }]],
    ['status.phase!=Running', [{ field: 'status.phase', operator: 'NotEquals', value: 'Running' }]],
    ['spec.nodeName=', [{ field: 'spec.nodeName', operator: 'Equals', value: '' }]],
    // Terms are sorted before parsing.
    ['status.phase=Running,metadata.name=web', [
      { field: 'metadata.name', operator: 'Equals', value: 'web' },
      { field: 'status.phase', operator: 'Equals', value: 'Running' },
    ]],
    // Backslash escapes in values: \, \= and \\.
    ['metadata.name=a\\,b', [{ field: 'metadata.name', operator: 'Equals', value: 'a,b' }]],
    ['metadata.name=a\\=b', [{ field: 'metadata.name', operator: 'Equals', value: 'a=b' }]],
    ['metadata.name=a\\\\b', [{ field: 'metadata.name', operator: 'Equals', value: 'a\\b' }]],
    // Keys take no escapes and no trimming: the first operator splits the term.
    [' metadata.name = web', [{ field: ' metadata.name ', operator: 'Equals', value: ' web' }]],
  ])('parses %j', (text, requirements) => {
    expect(parseFieldSelector(text)).toEqual({ requirements });
  });

  it.each([
    ['foo', "invalid selector: 'foo'; can't understand 'foo'"],
    ['metadata.name=a,foo', "invalid selector: 'metadata.name=a,foo'; can't understand 'foo'"],
    ['metadata.name in (a)', "invalid selector: 'metadata.name in (a)'; can't understand 'metadata.name in (a)'"],
    ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
    ['a!==b', 'invalid field selector: unescaped character in value: 61'],
    ['a=b\\x', 'invalid field selector: invalid escape sequence: \\x'],
    ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
    // The first bad term in sorted order wins.
    ['b=1=1,a', "invalid selector: 'b=1=1,a'; can't understand 'a'"],
  ])('rejects %j with kube-apiserver\'s message', (text, message) => {
    expect(() => parseFieldSelector(text)).toThrow(new SelectorError(message));
  });
});

describe('matchesFields', () => {
  const pod = { 'metadata.name': 'web', 'metadata.namespace': 'default', 'spec.nodeName': '' };
  it.each([
    ['', true],
    ['metadata.name=web', true],
    ['metadata.name==web', true],
    ['metadata.name=db', false],
    ['metadata.name!=db', true],
    ['metadata.name!=web', false],
    ['metadata.name=web,metadata.namespace=default', true],
    ['metadata.name=web,metadata.namespace=kube-system', false],
    ['spec.nodeName=', true],
    ['spec.nodeName!=', false],
    // An absent field reads as "".
    ['status.phase=', true],
    ['status.phase!=Running', true],
    ['status.phase=Running', false],
    ['constructor=', true],
  ])('%j is %s', (text, expected) => {
    expect(matchesFields(parseFieldSelector(text), pod)).toBe(expected);
  });

  it('matches values that needed escaping', () => {
    expect(matchesFields(parseFieldSelector('metadata.name=a\\,b\\=c'), { 'metadata.name': 'a,b=c' })).toBe(true);
  });
});

describe('requiredValue', () => {
  it.each([
    ['metadata.name=web', 'metadata.name', 'web'],
    ['metadata.name==web,status.phase=Running', 'metadata.name', 'web'],
    ['metadata.name=', 'metadata.name', ''],
    ['metadata.name!=web', 'metadata.name', undefined],
    ['status.phase=Running', 'metadata.name', undefined],
    ['', 'metadata.name', undefined],
  ])('%j requires %s = %j', (text, field, value) => {
    expect(requiredValue(parseFieldSelector(text), field)).toBe(value);
  });
});
