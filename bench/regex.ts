// Benchmark: the Go (RE2) regular-expression engine of core/regex against JavaScript's backtracking RegExp. Prints,
// per pattern, compile time and CPU time to match inputs of 27, 1,000 and 100,000 characters (adversarial: a
// backtracking engine's time doubles per character), the worst case the work budget (core/regex/budget.ts) is
// calibrated on (a 1,000-state automaton whose DFA gives up), and compile time per instruction.
// Usage: npx tsx bench/regex.ts
import { UNBOUNDED } from '../core/regex/budget';
import { clearRegexCache, compileGoRegexp, goFind, goMatch, type GoRegexp } from '../core/regex/go-regexp';

function cpu<T>(f: () => T): { ms: number; value: T } {
  const t = process.cpuUsage();
  const value = f();
  const d = process.cpuUsage(t);
  return { ms: (d.user + d.system) / 1000, value };
}

function compiled(p: string): GoRegexp {
  const re = compileGoRegexp(p);
  if ('error' in re) throw new Error(re.error);
  return re;
}

const adversarial = (n: number) => 'a'.repeat(n - 1) + '!';
const PATTERNS = ['^([a-z0-9]+[-.]?)*[a-z0-9]$', '^(a+)+$', '^(\\w+\\s?)*$', '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'];

console.log('pattern | insts | compile ms | 27 chars | 1,000 | 100,000 | RegExp, 27 chars');
for (const p of PATTERNS) {
  clearRegexCache();
  const c = cpu(() => compiled(p));
  const re = c.value;
  const times = [27, 1000, 100_000].map((n) => {
    const s = adversarial(n);
    goMatch(re, s, UNBOUNDED); // warm
    return cpu(() => goMatch(re, s, UNBOUNDED)).ms.toFixed(2);
  });
  const js = new RegExp(p, 'u');
  const jsMs = cpu(() => js.test(adversarial(27))).ms;
  console.log(`${p} | ${re.insts} | ${c.ms.toFixed(2)} | ${times.join(' | ')} | ${jsMs.toFixed(0)}`);
}

// Typical patterns on typical values (names, hosts): per-call cost.
const typical = compiled('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$');
const names = Array.from({ length: 10_000 }, (_, i) => `svc-${i}.ns-${i % 97}.example.com`);
const t = cpu(() => names.forEach((n) => goMatch(typical, n, UNBOUNDED)));
console.log(`typical: ${(t.ms * 1000 / names.length).toFixed(2)} µs per match of a ${names[0].length}-character DNS name`);

// The worst case per unit of work: a 1,005-instruction program whose DFA gives up, on random a/b text.
const worst = compiled('[ab]*a[ab]{999}c');
let seed = 1;
const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
const text = Array.from({ length: 20_000 }, () => (rnd() < 0.5 ? 'a' : 'b'));
text[text.length - 1000] = 'b';
const subject = `${text.join('')}c`;
const w = cpu(() => goMatch(worst, subject, UNBOUNDED));
const f = cpu(() => goFind(worst, subject, UNBOUNDED));
const units = (subject.length + 1) * worst.insts;
console.log(`worst case: boolean ${(w.ms * 1e6 / units).toFixed(0)} ns, find ${(f.ms * 1e6 / units).toFixed(0)} ns per (char × instruction)`);

// Compile time per instruction, for programs near the bound.
for (const p of ['[a-z]{1000}'.repeat(9), 'a{1000}'.repeat(9), '\\pL{1000}'.repeat(9), '(?:ab|cd|ef){1000}']) {
  clearRegexCache();
  const c = cpu(() => compiled(p));
  console.log(`compile ${p.slice(0, 18)}…: ${c.value.insts} instructions, ${(c.ms * 1000 / c.value.insts).toFixed(1)} µs each`);
}
