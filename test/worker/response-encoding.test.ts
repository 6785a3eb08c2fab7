// YAML answers and pretty JSON as kube-apiserver writes them.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { isPrettyPrint, jsonToYaml } from '../../worker/response-encoding';

describe('jsonToYaml', () => {
  it('sorts keys, does not indent sequences under their key, and writes null and empty collections', () => {
    const yaml = jsonToYaml(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', creationTimestamp: null }, data: {}, list: ['x', { b: 1 }], empty: [] }));
    expect(yaml).toBe('apiVersion: v1\ndata: {}\nempty: []\nkind: ConfigMap\nlist:\n- x\n- b: 1\nmetadata:\n  creationTimestamp: null\n  name: a\n');
  });

  it('quotes strings a YAML 1.1 reader would take for booleans, numbers or dates', () => {
    const data = { a: 'yes', b: 'y', c: 'on', d: '0755', e: '2024-01-01', f: 'Off', g: '1e3', h: 'true', i: '12:30', j: 'plain', k: '' };
    const yaml = jsonToYaml(JSON.stringify({ data }));
    expect(parse(yaml, { version: '1.1' })).toEqual({ data });
    expect(parse(yaml)).toEqual({ data });
    expect(yaml).toContain('a: "yes"');
    expect(yaml).toContain('j: plain');
  });
});

describe('isPrettyPrint', () => {
  const req = (query: string, agent?: string) => new Request(`https://x/api/v1/pods${query}`, { headers: agent ? { 'user-agent': agent } : {} });
  it.each([
    ['', 'curl/8.5.0', true], ['', 'Wget/1.21', true], ['', 'Mozilla/5.0 (X11)', true], ['', 'kubectl/v1.32.0', false], ['', undefined, false],
    ['?pretty=true', undefined, true], ['?pretty=1', undefined, true], ['?pretty=T', undefined, true],
    ['?pretty=false', 'curl/8.5.0', false], ['?pr%65tty=true', undefined, true], ['?a=pretty', 'curl/8.5.0', true], ['?a=1&pretty=0', undefined, false], ['?pretty=yes', undefined, false], ['?pretty=', 'curl/8.5.0', true],
  ])('query %j, agent %j → %s', (query, agent, want) => {
    expect(isPrettyPrint(req(query, agent))).toBe(want);
  });
});
