// Core: the CEL environment CRD validation rules are compiled and evaluated in. The base language comes
// from @marcbachmann/cel-js (macros has/all/exists/exists_one/map/filter, size, contains, startsWith,
// endsWith, string/list `in`, optional chaining, cel.bind, timestamps, durations); this module adds the
// Kubernetes libraries rules rely on that it lacks (k8s.io/apiserver pkg/cel/library lists.go and
// regex.go, cel-go ext strings and sets as kube's base environment enables them), replaces its
// backtracking `matches` with Go's linear RE2 (./regex.ts), and keeps a step counter that bounds what one
// evaluation may do (kube bounds cost per call and per request: apiserver/pkg/apis/cel config.go
// PerCallLimit and RuntimeCELCostBudget), to which calls cel-go prices by argument size add their cost.

import { Environment } from '@marcbachmann/cel-js';
import { matches, registerRegexFunctions } from './regex';
import { registerKubeLibraries } from './kube-libs';

/** Evaluation steps one rule may take (kube: PerCallLimit, 1,000,000 cost units). */
export const PER_CALL_STEPS = 1_000_000;
/** Evaluation steps every rule of one write may take together (kube: RuntimeCELCostBudget, 10,000,000). */
export const PER_WRITE_STEPS = 10_000_000;

/** Thrown from inside an evaluation that ran out of steps. */
export class CostLimitExceeded extends Error {
  constructor() {
    super('operation cancelled: actual cost limit exceeded');
  }
}

type List = unknown[];

/** A CEL duration value of the library (its class is not exported: known by its shape). */
export function isDuration(v: unknown): boolean {
  return typeof v === 'object' && v !== null && typeof (v as { seconds?: unknown }).seconds === 'bigint' && typeof (v as { addDuration?: unknown }).addDuration === 'function';
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  throw new Error('no such overload');
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isDuration(a) || a instanceof Date) return (isDuration(b) || b instanceof Date) && String(a) === String(b);
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) return a == b;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => k in b && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return false;
}

function extreme(l: List, sign: number): unknown {
  if (!l.length) throw new Error(sign > 0 ? 'max(list) argument must not be empty' : 'min(list) argument must not be empty');
  let best = l[0];
  for (const x of l) if (compare(x, best) * sign > 0) best = x;
  return best;
}

function sum(l: List): unknown {
  if (!l.length) return 0n;
  let acc = l[0] as bigint | number;
  for (let i = 1; i < l.length; i++) {
    const x = l[i] as bigint | number;
    if (typeof acc !== typeof x) throw new Error('no such overload');
    acc = (acc as number) + (x as number);
  }
  return acc;
}

function codePoints(s: string): string[] {
  return Array.from(s);
}

function display(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return String(v);
  if (v === null || v === undefined) return 'null';
  if (v instanceof Date) return v.toISOString().replace('.000Z', 'Z');
  if (isDuration(v)) return v.toString();
  if (Array.isArray(v)) return `[${v.map(display).join(', ')}]`;
  if (typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${display(k)}: ${display(x)}`).join(', ')}}`;
  return String(v);
}

function formatString(f: string, args: List): string {
  let n = 0;
  const next = () => {
    if (n >= args.length) throw new Error(`index ${n} out of range`);
    return args[n++];
  };
  return f.replace(/%(?:\.(\d+))?([sdfexXob%])/g, (_m, prec: string | undefined, verb: string) => {
    if (verb === '%') return '%';
    const v = next();
    switch (verb) {
      case 's':
        return display(v);
      case 'd':
        if (typeof v !== 'bigint' && !(typeof v === 'number' && Number.isInteger(v))) throw new Error('error during formatting: decimal clause can only be used on integers');
        return String(v);
      case 'f':
      case 'e': {
        const x = Number(v);
        const p = prec === undefined ? 6 : Number(prec);
        return verb === 'f' ? x.toFixed(p) : x.toExponential(p).replace(/e([+-])(\d)$/, 'e$10$2');
      }
      case 'x':
      case 'X': {
        const hex = typeof v === 'string' ? [...new TextEncoder().encode(v)].map((b) => b.toString(16).padStart(2, '0')).join('') : BigInt(v as bigint).toString(16);
        return verb === 'X' ? hex.toUpperCase() : hex;
      }
      case 'o':
        return BigInt(v as bigint).toString(8);
      default:
        return typeof v === 'boolean' ? String(v) : BigInt(v as bigint).toString(2);
    }
  });
}

/**
 * Functions of kube's CEL environment this server does not provide: a rule calling one is stored and
 * published but not evaluated (the CRD write and each custom-object write say so in a Warning).
 */
export const UNSUPPORTED_KUBE_FUNCTIONS = new Set([
  // cel-go ext strings
  'strings.quote',
  // two-variable comprehensions (cel-go ext, kube 1.32+ in stored expressions)
  'transformList', 'transformMap', 'transformMapEntry',
]);

let steps = 0;
let stepLimit = Number.POSITIVE_INFINITY;

/** Runs `fn` allowing at most `limit` evaluation steps; returns the steps taken. */
export function withStepLimit<T>(limit: number, fn: () => T): { value: T; steps: number } {
  steps = 0;
  stepLimit = limit;
  try {
    return { value: fn(), steps };
  } finally {
    stepLimit = Number.POSITIVE_INFINITY;
  }
}

/** Steps taken since the last withStepLimit began (also after it threw). */
export function stepsTaken(): number {
  return steps;
}

/** Registers a function unless the library has that overload already. */
export type AddFunction = (signature: string, fn: (...args: never[]) => unknown) => void;

function build(optionalOldSelf: boolean, variables: readonly string[] = [], declare?: (env: Environment, add: AddFunction) => void): Environment {
  const env = new Environment({ homogeneousAggregateLiterals: false, enableOptionalTypes: true })
    .registerVariable('self', 'dyn')
    .registerVariable('oldSelf', optionalOldSelf ? 'optional<dyn>' : 'dyn');
  for (const v of variables) env.registerVariable(v, 'dyn');
  // Functions the library already has (cel-js adds some of cel-go's ext strings) keep its version.
  const add: AddFunction = (signature, fn) => {
    try {
      env.registerFunction(signature, fn as (...args: unknown[]) => unknown);
    } catch (e) {
      if (!/overlaps with existing overload/.test(String((e as Error).message))) throw e;
    }
  };
  // k8s.io/apiserver pkg/cel/library/lists.go
  add('list.isSorted(): bool', (l: List) => {
    for (let i = 1; i < l.length; i++) if (compare(l[i - 1], l[i]) > 0) return false;
    return true;
  });
  add('list.sum(): dyn', sum);
  add('list.min(): dyn', (l: List) => extreme(l, -1));
  add('list.max(): dyn', (l: List) => extreme(l, 1));
  add('list.indexOf(dyn): int', (l: List, v: unknown) => BigInt(l.findIndex((x) => sameValue(x, v))));
  add('list.lastIndexOf(dyn): int', (l: List, v: unknown) => {
    for (let i = l.length - 1; i >= 0; i--) if (sameValue(l[i], v)) return BigInt(i);
    return -1n;
  });
  // cel-go ext lists (kube base environment): slice, distinct, flatten, reverse.
  add('list.slice(int, int): list', (l: List, a: bigint, b: bigint) => {
    if (a < 0n || b < a || b > BigInt(l.length)) throw new Error(`cannot slice(${a}, ${b}), invalid index`);
    return l.slice(Number(a), Number(b));
  });
  add('list.reverse(): list', (l: List) => [...l].reverse());
  add('list.flatten(): list', (l: List) => l.flatMap((x) => (Array.isArray(x) ? x : [x])));
  add('list.distinct(): list', (l: List) => {
    const out: unknown[] = [];
    for (const x of l) if (!out.some((y) => sameValue(x, y))) out.push(x);
    return out;
  });
  // k8s.io/apiserver pkg/cel/library/regex.go, and cel-go's global matches(string, string).
  registerRegexFunctions(add, chargeSteps);
  add('string.__edgeplane_matches(string): bool', (s: string, p: string) => matches(s, p, chargeSteps));
  // cel-go ext strings (kube: version 2), with code-point indexing as cel-go's.
  add('string.charAt(int): string', (s: string, i: bigint) => {
    const cps = codePoints(s);
    if (i < 0n || i > BigInt(cps.length)) throw new Error(`index out of range: ${i}`);
    return cps[Number(i)] ?? '';
  });
  add('string.lowerAscii(): string', (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase()));
  add('string.upperAscii(): string', (s: string) => s.replace(/[a-z]/g, (c) => c.toUpperCase()));
  add('string.replace(string, string): string', (s: string, a: string, b: string) => s.split(a).join(b));
  add('string.replace(string, string, int): string', (s: string, a: string, b: string, n: bigint) => {
    if (n < 0n) return s.split(a).join(b);
    const parts = s.split(a);
    const k = Math.min(Number(n), parts.length - 1);
    return parts.slice(0, k + 1).join(b) + (k + 1 < parts.length ? a + parts.slice(k + 1).join(a) : '');
  });
  add('string.reverse(): string', (s: string) => codePoints(s).reverse().join(''));
  // cel-go ext strings format(): %s %d %f %e %x %X %o %b %%, with an optional precision for %f and %e.
  add('string.format(list): string', (f: string, args: List) => formatString(f, args));
  // ip, cidr, url, quantity, format, sets and semver (./kube-libs.ts).
  registerKubeLibraries(env, add, chargeSteps, sameValue);
  // The caller's own types and functions (ValidatingAdmissionPolicy: the authorizer library).
  declare?.(env, add);
  // The step counter: every AST node evaluation goes through the evaluator's `run`, which a function
  // handler sees as `this`. Catch that evaluator once and count its runs.
  let evaluator: { run: (ast: unknown, ctx: unknown) => unknown } | undefined;
  env.registerFunction('__edgeplane_evaluator(): bool', function (this: typeof evaluator) {
    evaluator = this;
    return true;
  });
  env.evaluate('__edgeplane_evaluator()', {});
  if (!evaluator) throw new Error('cel: evaluator not found');
  const run = evaluator.run;
  evaluator.run = function (ast, ctx) {
    if (++steps > stepLimit) throw new CostLimitExceeded();
    return run.call(this, ast, ctx);
  };
  // The library's own string.matches runs JavaScript's backtracking RegExp. Its declaration is frozen
  // and registering the same signature is refused, so the checker's and evaluator's candidate list for
  // `.matches(x)` gets the linear one in its place (after all registrations: a later one rebuilds it).
  const registry = (evaluator as unknown as { registry: Registry }).registry;
  const ours = registry.functionCandidates(true, '__edgeplane_matches', 1).declarations[0];
  const theirs = registry.functionCandidates(true, 'matches', 1).declarations;
  const at = theirs.findIndex((d) => d.signature === 'string.matches(string): bool');
  if (!ours || at < 0) throw new Error('cel: string.matches overload not found');
  theirs[at] = ours;
  widenHas(registry);
  return env;
}

interface Registry {
  functionCandidates(receiver: boolean, name: string, args: number): { declarations: { signature: string }[]; macro: MacroDeclaration | false };
}

interface AstNode {
  op: string;
  args: unknown;
}

interface Checker {
  check(node: AstNode, ctx: unknown): unknown;
  createError(code: string, message: string, node: AstNode): Error;
  getType(name: string): unknown;
}

interface HasMacro {
  args: AstNode[];
  macroHasProps?: AstNode[];
  typeCheck(checker: Checker, macro: HasMacro, ctx: unknown): unknown;
}

interface MacroDeclaration {
  handler(opts: unknown): HasMacro;
}

/**
 * cel-go's has() takes any field selection, `has(e.f)` with `e` any expression (`has(self[0].matches)`,
 * `has(self.a.b[0].c)`): it evaluates `e`, then tests `f`. The library's macro evaluates exactly that (its
 * operand chain ends in a node it runs like any other, counted by the step counter) but its type check
 * insists the chain starts at an identifier. Its parse-time handler is wrapped so the check accepts any
 * operand: the selections down to the first node that is not one, which is checked as an expression.
 */
function widenHas(registry: Registry): void {
  const candidates = registry.functionCandidates(false, 'has', 1);
  const decl = candidates.macro;
  if (!decl) throw new Error('cel: has() macro not found');
  const original = decl.handler.bind(decl);
  const typeCheck = (checker: Checker, macro: HasMacro, ctx: unknown) => {
    let node = macro.args[0];
    if (node.op !== '.') throw checker.createError('invalid_macro_argument', 'has() invalid argument', node);
    if (!macro.macroHasProps) {
      const props: AstNode[] = [];
      while (node.op === '.' || node.op === '.?') {
        props.push(node);
        node = (node.args as AstNode[])[0];
      }
      checker.check(node, ctx);
      props.push(node);
      macro.macroHasProps = props;
    }
    return checker.getType('bool');
  };
  // The declaration is frozen: a new object in front of it carries the wrapped handler.
  candidates.macro = Object.create(decl, {
    handler: { value: (opts: unknown) => ({ ...original(opts), typeCheck }), enumerable: true },
  }) as MacroDeclaration;
}

/** Adds `cost` to the running evaluation's steps (cel-go charges some calls by their arguments' size). */
export function chargeSteps(cost: number): void {
  steps += cost;
  if (steps > stepLimit) throw new CostLimitExceeded();
}

const shared: (Environment | undefined)[] = [];

/**
 * The environment rules compile in (built on first use: it costs a few milliseconds); with
 * `optionalOldSelf`, oldSelf is an optional (rules with optionalOldSelf: true).
 */
export function celEnvironment(optionalOldSelf = false): Environment {
  const i = optionalOldSelf ? 1 : 0;
  return (shared[i] ??= build(optionalOldSelf));
}

const withVariables = new Map<string, Environment>();

/**
 * The same environment with other top-level variables, all `dyn`: admission expressions (webhook
 * matchConditions, ValidatingAdmissionPolicy) see `object`, `oldObject`, `request`, `params`, … rather than `self`.
 */
export function celEnvironmentWith(variables: readonly string[]): Environment {
  const key = variables.join(',');
  let env = withVariables.get(key);
  if (!env) withVariables.set(key, (env = build(false, variables)));
  return env;
}

const declared = new Map<string, Environment>();

/**
 * An environment with the same libraries and step counter whose caller declares its own variables, types and
 * functions (ValidatingAdmissionPolicy: `authorizer` and its library), built once per `key` on first use.
 */
export function celEnvironmentDeclared(key: string, declare: (env: Environment, add: AddFunction) => void): Environment {
  let env = declared.get(key);
  if (!env) declared.set(key, (env = build(false, [], declare)));
  return env;
}
