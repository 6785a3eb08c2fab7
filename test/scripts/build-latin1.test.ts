// Tooling: the Worker bundle written in Latin-1 only (scripts/build.ts latin1Only), so V8 keeps its source one byte per character.
import { describe, expect, it } from 'vitest';
import { latin1Only } from '../../scripts/build';

describe('latin1Only', () => {
  it('escapes every character above U+00FF and leaves Latin-1 as it is', () => {
    expect(latin1Only('a — b µ μ ∫ x² 😀')).toBe('a \\u2014 b µ \\u03bc \\u222b x² \\ud83d\\ude00');
    expect([...latin1Only('// ∫ x dt\nconst s = "ø—";')].every((c) => c.charCodeAt(0) <= 0xff)).toBe(true);
  });

  it('means the same in strings, regexes (with and without the u flag), templates and identifiers', () => {
    const source = 'const μs = "a—b"; const r = /(ns|μs)$/; const ru = /😀/u; const t = `x→${μs}`; [μs, r.test("5μs"), ru.test("😀"), t]';
    expect((0, eval)(latin1Only(source))).toEqual((0, eval)(source));
    expect((0, eval)(latin1Only(source))).toEqual(['a—b', true, true, 'x→a—b']);
  });
});

describe('latin1Only refusals', () => {
  it('refuses a character the source escapes itself, whose \\u form would mean something else', () => {
    expect(() => latin1Only(String.raw`/\—/`)).toThrow(/backslash before U\+2014/);
  });
});
