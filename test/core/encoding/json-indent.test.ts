// Indented JSON answers (?pretty, curl) as one pass over the text, in pieces (issue 18 class 11): the same text as
// JSON.stringify(v, null, 2) at every depth the request gate admits, and deeper, without recursion.
import { describe, expect, it } from 'vitest';
import { indentedJson } from '../../../core/encoding/json-indent';

const indent = (json: string, chunk?: number) => [...indentedJson(json, chunk)].join('');

describe('indentedJson', () => {
  it.each([
    '{}', '[]', '{"a":1}', '{"a":[],"b":{},"c":[1,{"d":null}],"e":"x,y:{z}[\\"]","f":true}', '[[[]],[{}],"\\\\"]', '"s"', '12', 'null',
    '{"k":"\\u2028\\ud83d\\ude00 \\n","l":[1.5,-2e-7,{"m":[[{"n":{}}]]}]}',
  ])('%s', (text) => {
    const json = JSON.stringify(JSON.parse(text)); // compact and canonical, as every answer is
    expect(indent(json)).toBe(JSON.stringify(JSON.parse(json), null, 2));
    expect(indent(json, 1)).toBe(JSON.stringify(JSON.parse(json), null, 2));
  });

  it('indents 1,002 levels (a list of objects at the request gate) and 12,000, in bounded pieces', () => {
    const deep = (n: number) => '{"a":'.repeat(n - 1) + '[1]' + '}'.repeat(n - 1);
    expect(indent(deep(1002))).toBe(JSON.stringify(JSON.parse(deep(1002)), null, 2));
    let total = 0;
    for (const piece of indentedJson(deep(12_000), 4096)) {
      expect(piece.length).toBeLessThan(4096 + 2 * 12_000 + 16);
      total += piece.length;
    }
    // Each level: its key line and its closing line, indented by depth.
    expect(total).toBeGreaterThan(2 * 12_000 * 12_000);
  });
});
