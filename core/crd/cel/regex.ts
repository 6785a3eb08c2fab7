// Core: CEL's regular-expression functions as kube evaluates them: `matches` (cel-go's standard
// library, Go's regexp.MatchString), `find` and `findAll` (k8s.io/apiserver pkg/cel/library regex.go),
// with Go's RE2 syntax and errors and in linear time (core/regex), their cel-go cost (charged by
// string and pattern length, interpreter/runtimecost.go and library cost.go), and the compile-time
// checks kube makes on a constant pattern: cel.ValidateRegexLiterals ("invalid matches argument") and
// the regex optimizations that compile it at program creation ("program instantiation failed").

import { RegexBudget } from '../../regex/budget';
import { walkCel } from './walk';
import { compileGoRegexp, goFind, goFindAll, goMatch, goRegexpError, type GoRegexp } from '../../regex/go-regexp';

// The write's regular-expression budget, set around each evaluation (core/crd/cel/evaluate.ts).
let budget = new RegexBudget();

/** Makes `b` the budget regex functions spend; returns the previous one. */
export function useRegexBudget(b: RegexBudget): RegexBudget {
  const prev = budget;
  budget = b;
  return prev;
}

function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) (n--, i++);
    }
  }
  return n;
}

// cel-go common/cost.go.
const STRING_TRAVERSAL_COST_FACTOR = 0.1;
const REGEX_STRING_LENGTH_COST_FACTOR = 0.25;

/**
 * cel-go's actual cost of matches/find/findAll on `s` with pattern `p`: the string's traversal times
 * the pattern's (sizes in code points, as CEL's size()).
 */
export function regexCallCost(s: string, p: string): number {
  const strCost = Math.ceil((1 + codePoints(s)) * STRING_TRAVERSAL_COST_FACTOR);
  const regexCost = Math.ceil(codePoints(p) * REGEX_STRING_LENGTH_COST_FACTOR);
  return strCost * regexCost;
}

function compiled(p: string, prefix: string): GoRegexp {
  const re = compileGoRegexp(p, budget);
  if ('error' in re) throw new Error(prefix + re.error);
  return re;
}

type Add = (signature: string, fn: (...args: never[]) => unknown) => void;

/** Registers find/findAll and the global matches(string, string); `charge` takes cost units. */
export function registerRegexFunctions(add: Add, charge: (cost: number) => void): void {
  add('string.find(string): string', (s: string, p: string) => {
    charge(regexCallCost(s, p));
    return goFind(compiled(p, 'Illegal regex: '), s, budget);
  });
  add('string.findAll(string): list<string>', (s: string, p: string) => {
    charge(regexCallCost(s, p));
    return goFindAll(compiled(p, 'Illegal regex: '), s, -1, budget);
  });
  add('string.findAll(string, int): list<string>', (s: string, p: string, n: bigint) => {
    charge(regexCallCost(s, p));
    // Go's FindAllString takes an int: any negative count means all.
    const count = n < 0n ? -1 : n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
    return goFindAll(compiled(p, 'Illegal regex: '), s, count, budget);
  });
  add('matches(string, string): bool', (s: string, p: string) => matches(s, p, charge));
}

/** cel-go's matches: Go's error text, unprefixed, when the pattern does not compile. */
export function matches(s: string, p: string, charge: (cost: number) => void): boolean {
  charge(regexCallCost(s, p));
  return goMatch(compiled(p, ''), s, budget);
}

interface AstNode {
  op?: string;
  args?: unknown;
  start?: number;
}

export interface RegexIssue {
  message: string;
  range: { start: number };
}

function literal(n: unknown): { value: string; start: number } | undefined {
  const node = n as AstNode | undefined;
  return node?.op === 'value' && typeof node.args === 'string' ? { value: node.args, start: node.start ?? 0 } : undefined;
}

/**
 * What kube finds wrong with a rule's constant patterns once it type-checks: `issues`, the
 * ValidateRegexLiterals findings (each `matches` call whose first argument is an invalid literal: for
 * `s.matches('…')` the pattern, for `matches(a, b)` the string a, as cel-go checks argument 0), and
 * `program`, the first constant pattern of matches/find/findAll that does not compile (Go's error).
 */
export function constantPatternErrors(ast: unknown): { issues: RegexIssue[]; program?: string } {
  const issues: RegexIssue[] = [];
  let program: { at: number; error: string } | undefined;
  walkCel(ast, (node) => {
    const { op, args } = node as AstNode;
    if ((op === 'call' || op === 'rcall') && Array.isArray(args) && typeof args[0] === 'string') {
      const name = args[0];
      const callArgs = (op === 'rcall' ? args[2] : args[1]) as unknown[] | undefined;
      if (Array.isArray(callArgs)) {
        const first = literal(callArgs[0]);
        if (name === 'matches' && first && goRegexpError(first.value)) issues.push({ message: 'invalid matches argument', range: { start: first.start } });
        // The regex optimizations read the pattern at argument 1 of the call, the receiver counting as 0.
        const pattern = literal(op === 'rcall' ? callArgs[0] : callArgs[1]);
        if (pattern && (name === 'matches' || (op === 'rcall' && (name === 'find' || name === 'findAll')))) {
          const error = goRegexpError(pattern.value);
          if (error && (!program || pattern.start < program.at)) program = { at: pattern.start, error };
        }
      }
    }
    return args && typeof args === 'object' ? (Array.isArray(args) ? args : Object.values(args)) : undefined;
  });
  issues.sort((a, b) => a.range.start - b.range.start);
  return { issues, program: program?.error };
}
