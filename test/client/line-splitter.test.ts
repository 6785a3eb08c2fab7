import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../client/line-splitter';

describe('LineSplitter', () => {
  it('returns each complete line and holds back the unfinished tail', () => {
    const s = new LineSplitter();
    expect(s.push('{"a":1}\n{"b":')).toEqual(['{"a":1}']);
    expect(s.push('2}\n')).toEqual(['{"b":2}']);
    expect(s.end()).toEqual([]);
  });

  it('handles a chunk per character, and several lines in one chunk', () => {
    const text = '{"type":"ADDED"}\n{"type":"BOOKMARK"}\n{"type":"DELETED"}\n';
    const one = new LineSplitter();
    const out: string[] = [];
    for (const ch of text) out.push(...one.push(ch));
    expect(out).toEqual(['{"type":"ADDED"}', '{"type":"BOOKMARK"}', '{"type":"DELETED"}']);
    expect(new LineSplitter().push(text)).toEqual(out);
  });

  it('skips blank lines and strips CR', () => {
    expect(new LineSplitter().push('\n\r\n{"x":1}\r\n  \n')).toEqual(['{"x":1}']);
  });

  it('gives the last line at the end even without its newline', () => {
    const s = new LineSplitter();
    expect(s.push('{"a":1}\n{"b":2}')).toEqual(['{"a":1}']);
    expect(s.end()).toEqual(['{"b":2}']);
    expect(s.end()).toEqual([]);
  });
});
