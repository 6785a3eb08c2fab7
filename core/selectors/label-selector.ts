// Core: label selectors, from ?labelSelector= text or a metav1.LabelSelector, parsed, matched and printed
// exactly as apimachinery pkg/labels/selector.go (v1.32) does, including its error messages.
import { goQuote, invalidValue, labelKeyMessages, labelValueMessages } from '../validation/names';
import { SelectorError } from './selector-error';
import { compileLabelSelector, matchLabels, parseInt64, type LabelMatcher } from './label-matcher';

export type LabelOperator =
  | 'In'
  | 'NotIn'
  | 'Exists'
  | 'DoesNotExist'
  | 'Equals'
  | 'DoubleEquals'
  | 'NotEquals'
  | 'GreaterThan'
  | 'LessThan';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

/** Requirements are ANDed. `matchesNothing` is labels.Nothing(), what a nil metav1.LabelSelector means. */
export interface LabelSelector {
  requirements: LabelRequirement[];
  matchesNothing?: boolean;
}

/** The metav1.LabelSelector API shape found in workload specs. */
export interface LabelSelectorSpec {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** Parses `app=web,tier in (a,b),!canary`. The empty string selects everything. */
export function parseLabelSelector(text: string): LabelSelector {
  return { requirements: sortByKey(new Parser(text).parse()) };
}

/** O(number of labels) per object, whatever the selector's size (see label-matcher.ts). */
export function matchesLabels(sel: LabelSelector, labels: Record<string, string> | undefined): boolean {
  let matcher = compiled.get(sel);
  if (!matcher) {
    matcher = compileLabelSelector(sel);
    compiled.set(sel, matcher);
  }
  return matchLabels(matcher, labels ?? {});
}

// One compiled form per parsed selector, dropped with it.
const compiled = new WeakMap<LabelSelector, LabelMatcher>();

/** metav1.LabelSelectorAsSelector: nil selects nothing, an empty selector selects everything. */
export function selectorFromLabelSelector(ls: LabelSelectorSpec | null | undefined): LabelSelector {
  if (ls === null || ls === undefined) return { requirements: [], matchesNothing: true };
  const requirements: LabelRequirement[] = [];
  try {
    for (const [key, value] of Object.entries(ls.matchLabels ?? {}).sort(([a], [b]) => compare(a, b))) {
      requirements.push(newRequirement(key, 'Equals', [value]));
    }
    for (const expr of ls.matchExpressions ?? []) {
      const operator = EXPRESSION_OPERATORS.get(expr.operator);
      if (!operator) throw new SelectorError(`${goQuote(expr.operator)} is not a valid label selector operator`);
      requirements.push(newRequirement(expr.key, operator, [...(expr.values ?? [])]));
    }
  } catch (e) {
    throw e instanceof RequirementError ? new SelectorError(e.message) : e;
  }
  return { requirements: sortByKey(requirements) };
}

/** metav1.FormatLabelSelector, the SELECTOR column kubectl prints: `app=nginx`, `<none>`, `<error>`. */
export function formatLabelSelector(ls: LabelSelectorSpec | null | undefined): string {
  let sel: LabelSelector;
  try {
    sel = selectorFromLabelSelector(ls);
  } catch {
    return '<error>';
  }
  return sel.requirements.map(requirementString).join(',') || '<none>';
}

// Maps, not object literals: lookups take client text, which may be "constructor" or "__proto__".
const EXPRESSION_OPERATORS = new Map<string, LabelOperator>([
  ['In', 'In'],
  ['NotIn', 'NotIn'],
  ['Exists', 'Exists'],
  ['DoesNotExist', 'DoesNotExist'],
]);

const OPERATOR_TEXT: Record<LabelOperator, string> = {
  Equals: '=',
  DoubleEquals: '==',
  NotEquals: '!=',
  In: ' in ',
  NotIn: ' notin ',
  GreaterThan: '>',
  LessThan: '<',
  Exists: '',
  DoesNotExist: '',
};

function requirementString(r: LabelRequirement): string {
  if (r.operator === 'Exists') return r.key;
  if (r.operator === 'DoesNotExist') return `!${r.key}`;
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort(compare).join(',');
  const shown = r.operator === 'In' || r.operator === 'NotIn' ? `(${values})` : values;
  return `${r.key}${OPERATOR_TEXT[r.operator]}${shown}`;
}

// sort.Strings compares bytes; selector keys and values are ASCII once validated.
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortByKey(reqs: LabelRequirement[]): LabelRequirement[] {
  return reqs.sort((a, b) => compare(a.key, b.key));
}

/** An error inside one requirement; the parser prefixes it with "unable to parse requirement: ". */
class RequirementError extends Error {}

/** labels.NewRequirement: validates key, operator arity and values, aggregating every problem. */
function newRequirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const errs: string[] = [];
  const keyMessages = labelKeyMessages(key);
  if (keyMessages.length > 0) errs.push(fieldError(invalidValue('key', key, keyMessages.join('; '))));
  errs.push(...arityErrors(operator, values));
  values.forEach((v, i) => {
    const msgs = labelValueMessages(v);
    if (msgs.length > 0) errs.push(fieldError(invalidValue(`values[${i}][${key}]`, v, msgs.join('; '))));
  });
  if (errs.length > 0) throw new RequirementError(aggregate(errs));
  return { key, operator, values };
}

function arityErrors(operator: LabelOperator, values: string[]): string[] {
  const unless = (ok: boolean, detail: string): string[] => (ok ? [] : [fieldError(invalidValue('values', values, detail))]);
  switch (operator) {
    case 'In':
    case 'NotIn':
      return unless(values.length > 0, "for 'in', 'notin' operators, values set can't be empty");
    case 'Equals':
    case 'DoubleEquals':
    case 'NotEquals':
      return unless(values.length === 1, 'exact-match compatibility requires one single value');
    case 'Exists':
    case 'DoesNotExist':
      return unless(values.length === 0, 'values set must be empty for exists and does not exist');
    case 'GreaterThan':
    case 'LessThan': {
      const errs = unless(values.length === 1, "for 'Gt', 'Lt' operators, exactly one value is required");
      values.forEach((v, i) => {
        if (parseInt64(v) !== undefined) return;
        errs.push(fieldError(invalidValue(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer")));
      });
      return errs;
    }
  }
}

function fieldError(cause: { field: string; message: string }): string {
  return `${cause.field}: ${cause.message}`;
}

/** utilerrors.NewAggregate(...).Error(): duplicates dropped, several wrapped in brackets. */
function aggregate(errs: string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

// ---- lexer and parser, a line-for-line port of selector.go's so that errors name the same tokens ----

type Token =
  | 'error'
  | 'eos'
  | 'identifier'
  | ')'
  | ','
  | '!'
  | '=='
  | '='
  | '>'
  | 'in'
  | '<'
  | '!='
  | 'notin'
  | '(';

interface Item {
  tok: Token;
  literal: string;
}

const KEYWORDS = new Map<string, Token>(
  [')', ',', '!', '==', '=', '>', 'in', '<', '!=', 'notin', '('].map((k) => [k, k as Token]),
);

const BINARY_OPERATORS: Partial<Record<Token, LabelOperator>> = {
  in: 'In', '=': 'Equals', '==': 'DoubleEquals', '>': 'GreaterThan', '<': 'LessThan', notin: 'NotIn', '!=': 'NotEquals',
};

// selection.Operator spellings, in the order selector.go lists them in its "expected:" message.
const BINARY_OPERATOR_NAMES = 'in, notin, =, ==, !=, gt, lt';

const isWhitespace = (ch: number): boolean => ch === 0x20 || ch === 0x09 || ch === 0x0d || ch === 0x0a;
const isSpecial = (ch: number): boolean => '=!(),><'.includes(String.fromCharCode(ch));

function lex(s: string): Item[] {
  let pos = 0;
  // Like Go's lexer, a NUL character reads the same as the end of input.
  const read = (): number => (pos < s.length ? s.charCodeAt(pos++) : 0);

  const scanIdOrKeyword = (): Item => {
    let buffer = '';
    for (let ch = read(); ch !== 0; ch = read()) {
      if (isSpecial(ch) || isWhitespace(ch)) {
        pos--;
        break;
      }
      buffer += String.fromCharCode(ch);
    }
    return { tok: KEYWORDS.get(buffer) ?? 'identifier', literal: buffer };
  };

  const scanSpecialSymbol = (): Item => {
    let last: Item | undefined;
    let buffer = '';
    for (let ch = read(); ch !== 0; ch = read()) {
      if (!isSpecial(ch)) {
        pos--;
        break;
      }
      buffer += String.fromCharCode(ch);
      const tok = KEYWORDS.get(buffer);
      if (tok) {
        last = { tok, literal: buffer };
      } else if (last) {
        pos--;
        break;
      }
    }
    return last ?? { tok: 'error', literal: `error expected: keyword found '${buffer}'` };
  };

  const items: Item[] = [];
  for (;;) {
    let ch = read();
    while (isWhitespace(ch)) ch = read();
    if (ch === 0) {
      items.push({ tok: 'eos', literal: '' });
      return items;
    }
    pos--;
    items.push(isSpecial(ch) ? scanSpecialSymbol() : scanIdOrKeyword());
  }
}

class Parser {
  private readonly items: Item[];
  private position = 0;

  constructor(text: string) {
    this.items = lex(text);
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { tok, literal } = this.lookahead(true);
      if (tok === 'eos') return requirements;
      if (tok !== 'identifier' && tok !== '!') {
        throw new SelectorError(`found '${literal}', expected: !, identifier, or 'end of string'`);
      }
      requirements.push(this.parseRequirementOrFail());
      const next = this.consume(true);
      if (next.tok === 'eos') return requirements;
      if (next.tok !== ',') throw new SelectorError(`found '${next.literal}', expected: ',' or 'end of string'`);
      const after = this.lookahead(true);
      if (after.tok !== 'identifier' && after.tok !== '!') {
        throw new SelectorError(`found '${after.literal}', expected: identifier after ','`);
      }
    }
  }

  private parseRequirementOrFail(): LabelRequirement {
    try {
      return this.parseRequirement();
    } catch (e) {
      throw e instanceof RequirementError ? new SelectorError(`unable to parse requirement: ${e.message}`) : e;
    }
  }

  private parseRequirement(): LabelRequirement {
    const { key, operator } = this.parseKeyAndInferOperator();
    if (operator === 'Exists' || operator === 'DoesNotExist') return newRequirement(key, operator, []);
    const binary = this.parseOperator();
    const values = binary === 'In' || binary === 'NotIn' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, binary, [...values].sort(compare));
  }

  private parseKeyAndInferOperator(): { key: string; operator?: LabelOperator } {
    let operator: LabelOperator | undefined;
    let { tok, literal } = this.consume(true);
    if (tok === '!') {
      operator = 'DoesNotExist';
      ({ tok, literal } = this.consume(true));
    }
    if (tok !== 'identifier') throw new RequirementError(`found '${literal}', expected: identifier`);
    const keyMessages = labelKeyMessages(literal);
    // The parser validates the key with a nil field path, which Go prints as "<nil>".
    if (keyMessages.length > 0) {
      throw new RequirementError(fieldError(invalidValue('<nil>', literal, keyMessages.join('; '))));
    }
    const next = this.lookahead(true).tok;
    if ((next === 'eos' || next === ',') && operator !== 'DoesNotExist') operator = 'Exists';
    return { key: literal, operator };
  }

  private parseOperator(): LabelOperator {
    const { tok, literal } = this.consume(false);
    const op = BINARY_OPERATORS[tok];
    if (!op) throw new RequirementError(`found '${literal}', expected: ${BINARY_OPERATOR_NAMES}`);
    return op;
  }

  private parseValues(): Set<string> {
    const open = this.consume(true);
    if (open.tok !== '(') throw new RequirementError(`found '${open.literal}' expected: '('`);
    const { tok, literal } = this.lookahead(true);
    if (tok === ')') {
      // "()" is read as the single empty value, so `x in ()` matches an empty label.
      this.consume(true);
      return new Set(['']);
    }
    if (tok !== 'identifier' && tok !== ',') {
      throw new RequirementError(`found '${literal}', expected: ',', ')' or identifier`);
    }
    const values = this.parseIdentifiersList();
    if (this.consume(true).tok !== ')') throw new RequirementError(`found '${literal}', expected: ')'`);
    return values;
  }

  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { tok, literal } = this.consume(true);
      if (tok === 'identifier') {
        values.add(literal);
        const next = this.lookahead(true);
        if (next.tok === ',') continue;
        if (next.tok === ')') return values;
        throw new RequirementError(`found '${next.literal}', expected: ',' or ')'`);
      }
      if (tok !== ',') throw new RequirementError(`found '${literal}', expected: ',', or identifier`);
      // Commas with nothing between them stand for the empty value: "(,a)", "(a,)", "(a,,b)".
      if (values.size === 0) values.add('');
      const next = this.lookahead(true).tok;
      if (next === ')') {
        values.add('');
        return values;
      }
      if (next === ',') {
        this.consume(true);
        values.add('');
      }
    }
  }

  private parseExactValue(): string[] {
    const next = this.lookahead(true).tok;
    if (next === 'eos' || next === ',') return [''];
    const { tok, literal } = this.consume(true);
    if (tok === 'identifier') return [literal];
    throw new RequirementError(`found '${literal}', expected: identifier`);
  }

  // In value position the keywords `in` and `notin` are plain identifiers ("x in (in)").
  private lookahead(inValues: boolean): Item {
    return asContext(this.items[this.position], inValues);
  }

  private consume(inValues: boolean): Item {
    return asContext(this.items[this.position++], inValues);
  }
}

function asContext(item: Item, inValues: boolean): Item {
  return inValues && (item.tok === 'in' || item.tok === 'notin') ? { tok: 'identifier', literal: item.literal } : item;
}
