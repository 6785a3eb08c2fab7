// Core: the regular-expression work one request may do. Every automaton engine (re2js's DFA, its NFA,
// Go's) is linear in the input but also proportional to the compiled program: in the worst case a
// match visits every instruction at every input character, so one call costs (chars + 1) × instructions
// and compiling costs a constant per instruction. Requests are charged that bound up front and refused
// past their budget; kube's CEL cost (charged separately, core/crd/cel/library.ts) counts only the
// pattern's length, which a counted repetition (`[ab]{999}`) multiplies a thousandfold.
//
// Measured with re2js 2.10.0 on Node 20 (bench/regex.ts, a loaded 2-core machine), with the 64 KiB DFA
// core/regex/go-regexp.ts gives each expression: the slowest boolean match, after the DFA gave up, 10–20 ns
// per (char × instruction) on long inputs (NFA) and up to ~70–100 ns on short ones (the bit-state
// backtracker, used while chars × instructions ≤ 256 Ki); with positions (find) about the same; compiling
// 1.5–20 µs per instruction. One unit ≈ 10–100 ns of the worst case.

/**
 * Units one write may spend on regular expressions: 0.04–0.4 s of worst-case matching, so that a tenant's
 * concurrent writes (they share the one thread) stay inside others' latency bound. Legitimate use fits:
 * 1,000 DNS names of 253 characters against a 12-instruction pattern take 3 million.
 */
export const REGEX_UNITS_PER_WRITE = 4_000_000;
/** A match that reports positions (find, findAll) walks the NFA with capture slots: ~2.5× a boolean one. */
export const POSITIONAL_MATCH_FACTOR = 2.5;
/** Compiling, per (estimated) program instruction. */
export const COMPILE_UNITS_PER_INST = 200;

/** Thrown when a regular expression would take the request past its budget; nothing was run. */
export class RegexBudgetExceeded extends Error {
  constructor() {
    super('regular expression work budget exceeded');
  }
}

export class RegexBudget {
  private spent = 0;

  constructor(readonly limit = REGEX_UNITS_PER_WRITE) {}

  get used(): number {
    return this.spent;
  }

  /** Takes `units` or throws RegexBudgetExceeded (taking nothing). */
  charge(units: number): void {
    if (this.spent + units > this.limit) throw new RegexBudgetExceeded();
    this.spent += units;
  }
}

/** A budget without a limit, for callers that bound their input themselves (tests, trusted text). */
export const UNBOUNDED = new RegexBudget(Number.POSITIVE_INFINITY);
