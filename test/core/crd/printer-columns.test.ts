import { describe, expect, it } from 'vitest';
import { customTableSpec, evaluate, parsePath } from '../../../core/crd/printer-columns';

describe('printer columns', () => {
  it('evaluates simple JSONPaths, first match wins, missing is undefined', () => {
    const obj = { spec: { x: 1, list: [{ n: 'a' }, { n: 'b' }], labels: { 'app.kubernetes.io/name': 'web' } } };
    expect(evaluate(parsePath('.spec.x')!, obj)).toBe(1);
    expect(evaluate(parsePath('.spec.list[1].n')!, obj)).toBe('b');
    expect(evaluate(parsePath('.spec.list[*].n')!, obj)).toBe('a');
    expect(evaluate(parsePath(".spec.labels['app.kubernetes.io/name']")!, obj)).toBe('web');
    expect(evaluate(parsePath('.spec.missing.deeper')!, obj)).toBeUndefined();
  });

  it('types cells as kube tableconvertor does; Age when there are no columns', () => {
    const now = Date.parse('2024-01-01T00:10:00Z');
    const spec = customTableSpec([
      { name: 'Int', type: 'integer', jsonPath: '.spec.n' },
      { name: 'Str', type: 'string', jsonPath: '.spec.m' },
      { name: 'When', type: 'date', jsonPath: '.spec.t' },
      { name: 'Bad', type: 'integer', jsonPath: '.spec.m' },
    ]);
    const obj = { metadata: { name: 'o' }, spec: { n: 3, m: { a: 1 }, t: '2024-01-01T00:00:00Z' } };
    expect(spec.columns.map((c) => c.name)).toEqual(['Name', 'Int', 'Str', 'When', 'Bad']);
    expect(spec.columns.map((c) => c.cell(obj, now))).toEqual(['o', 3, '{"a":1}', '10m', null]);
    expect(customTableSpec([]).columns.map((c) => [c.name, c.type])).toEqual([['Name', 'string'], ['Age', 'date']]);
  });
});

describe('JSONPath filters in printer columns', () => {
  it('selects list items by a field, as client-go jsonpath does', async () => {
    const { parsePath, evaluate } = await import('../../../core/crd/printer-columns');
    const status = { conditions: [{ type: 'Accepted', status: 'True' }, { type: 'Programmed', status: 'Unknown', n: 2 }] };
    expect(evaluate(parsePath('.status.conditions[?(@.type=="Programmed")].status')!, { status })).toBe('Unknown');
    expect(evaluate(parsePath(".status.conditions[?(@.type!='Accepted')].status")!, { status })).toBe('Unknown');
    expect(evaluate(parsePath('.status.conditions[?(@.n==2)].type')!, { status })).toBe('Programmed');
    expect(evaluate(parsePath('.status.conditions[?(@.n)].type')!, { status })).toBe('Programmed');
    expect(evaluate(parsePath('.status.conditions[?(@.type=="Ready")].status')!, { status })).toBeUndefined();
  });
});
