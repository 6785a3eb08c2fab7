// Core: field selectors (?fieldSelector=), parsed and matched as apimachinery pkg/fields/selector.go does:
// only =, == and != terms ANDed by commas, with backslash escapes in values and the same error text.
import { SelectorError } from './selector-error';

export type FieldOperator = 'Equals' | 'NotEquals';

export interface FieldRequirement {
  field: string;
  operator: FieldOperator;
  value: string;
}

/** Requirements are ANDed, in the order apimachinery evaluates them (terms sorted as written). */
export interface FieldSelector {
  requirements: FieldRequirement[];
}

/** Parses `metadata.name=web,status.phase!=Running`. The empty string selects everything. */
export function parseFieldSelector(text: string): FieldSelector {
  const requirements: FieldRequirement[] = [];
  // Go sorts the raw terms before parsing, so the first bad term in sorted order is the one reported.
  for (const term of splitTerms(text).sort()) {
    if (term === '') continue;
    const parts = splitTerm(term);
    if (!parts) throw new SelectorError(`invalid selector: '${text}'; can't understand '${term}'`);
    const value = unescapeValue(parts.rhs);
    // Transform drops a term that is empty on both sides, so "=" alone selects everything.
    if (parts.lhs === '' && value === '') continue;
    requirements.push({ field: parts.lhs, operator: parts.op === '!=' ? 'NotEquals' : 'Equals', value });
  }
  return { requirements };
}

/**
 * An object lacking a field reads it as "", so `spec.nodeName=` selects unscheduled pods. Costs
 * one lookup per distinct field named, however many terms name it (see compile below).
 */
export function matchesFields(sel: FieldSelector, fields: Record<string, string>): boolean {
  let checks = compiled.get(sel);
  if (!checks) {
    checks = compile(sel);
    compiled.set(sel, checks);
  }
  for (const [field, check] of checks) {
    if (check.never) return false;
    const actual = Object.hasOwn(fields, field) ? fields[field] : '';
    if (check.equals !== undefined && actual !== check.equals) return false;
    if (check.differs?.has(actual)) return false;
  }
  return true;
}

// The terms on one field, folded: every `=` must hold (two different values never both do), no
// `!=` value may be the actual one. A selector of thousands of terms on one field then costs one
// lookup per object, not thousands.
interface FieldCheck {
  equals?: string;
  never?: boolean;
  differs?: Set<string>;
}

const compiled = new WeakMap<FieldSelector, Map<string, FieldCheck>>();

function compile(sel: FieldSelector): Map<string, FieldCheck> {
  const checks = new Map<string, FieldCheck>();
  for (const r of sel.requirements) {
    let check = checks.get(r.field);
    if (!check) {
      check = {};
      checks.set(r.field, check);
    }
    if (r.operator === 'NotEquals') (check.differs ??= new Set()).add(r.value);
    else if (check.equals !== undefined && check.equals !== r.value) check.never = true;
    else check.equals = r.value;
  }
  return checks;
}

/** The value an exact `field=value` term demands (RequiresExactMatch), e.g. to index watchers by name. */
export function requiredValue(sel: FieldSelector, field: string): string | undefined {
  return sel.requirements.find((r) => r.field === field && r.operator === 'Equals')?.value;
}

function splitTerms(text: string): string[] {
  if (text === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

// The left side takes no escapes, so the first operator anywhere in the term is the split point;
// "!=" and "==" are tried before "=" at each position so the value keeps no stray "=".
function splitTerm(term: string): { lhs: string; op: string; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '=']) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

function unescapeValue(s: string): string {
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw new SelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      // Go formats the offending rune with %v, which prints its code point (61 for "=").
      throw new SelectorError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw new SelectorError('invalid field selector: invalid escape sequence: \\');
  return out;
}
