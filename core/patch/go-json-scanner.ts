// Core: finds the first syntax error in a JSON text and words it as Go's encoding/json scanner does
// ("invalid character 'x' looking for beginning of value"), since apiserver echoes that text in 400s —
// for request bodies and patches, and for continue tokens (core/list/continue-token.ts).
// A port of the state machine in Go's encoding/json/scanner.go, run only when JSON.parse has failed, or
// with a StructureListener to see a text's object keys as Go's decoder does (duplicate fields, which
// JSON.parse silently merges: core/schema/duplicates.ts).

type Step = (c: number) => Step | null;

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** encoding/json scanner.go maxNestingDepth: deeper nesting fails as "exceeded max depth". */
export const GO_MAX_NESTING_DEPTH = 10000;

/**
 * Returns Go's error text for `text`, or undefined when Go's scanner would accept it. `maxDepth`
 * is Go's nesting limit unless a caller enforces a lower one (see core/encoding/json-depth.ts).
 */
export function goJsonSyntaxError(text: string | Uint8Array, maxDepth = GO_MAX_NESTING_DEPTH): string | undefined {
  // Bytes as they came (a decoded continue token may not be UTF-8): the error names the offending byte.
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  const scanner = new Scanner(maxDepth);
  for (const c of bytes) {
    scanner.feed(c);
    if (scanner.error) return scanner.error;
  }
  return scanner.finish();
}

/** What a listening scan reports, in document order. */
export interface StructureListener {
  open(kind: 'object' | 'array'): void;
  /** An object key, as the raw JSON string bytes (quotes included). */
  key(raw: Uint8Array): void;
  /** The start of an array element. */
  element(): void;
  close(): void;
}

/** Scans `text`, telling `listener` its structure; returns Go's syntax error text, if any. */
export function scanStructure(text: string, listener: StructureListener): string | undefined {
  const bytes = new TextEncoder().encode(text);
  const scanner = new Scanner(GO_MAX_NESTING_DEPTH, listener, bytes);
  for (let i = 0; i < bytes.length; i++) {
    scanner.at = i;
    scanner.feed(bytes[i]);
    if (scanner.error) return scanner.error;
  }
  return scanner.finish();
}

class Scanner {
  error?: string;
  at = 0;
  private stack: ('key' | 'value' | 'array')[] = [];
  private step: Step = this.beginValue;
  private endTop = false;
  private keyStart = -1;

  constructor(private readonly maxDepth: number, private readonly listener?: StructureListener, private readonly bytes?: Uint8Array) {}

  feed(c: number): void {
    const next = this.step.call(this, c);
    if (next) this.step = next;
  }

  finish(): string | undefined {
    if (this.error) return this.error;
    if (this.endTop) return undefined;
    this.feed(0x20); // a trailing space completes a bare top-level number, as scanner.eof does
    return this.endTop || this.error ? this.error : 'unexpected end of JSON input';
  }

  private fail(c: number, context: string): null {
    this.error ??= `invalid character ${quoteChar(c)} ${context}`;
    return null;
  }

  private beginValue(c: number): Step | null {
    if (WS.has(c)) return this.beginValue;
    if (this.listener && this.stack[this.stack.length - 1] === 'array') this.listener.element();
    switch (c) {
      case 0x7b: // {
        if (this.push(c, 'key')) return null;
        this.listener?.open('object');
        return this.beginStringOrEmpty;
      case 0x5b: // [
        if (this.push(c, 'array')) return null;
        this.listener?.open('array');
        return this.beginValueOrEmpty;
      case 0x22:
        return this.inString;
      case 0x2d:
        return this.neg;
      case 0x30:
        return this.zero;
      case 0x74:
        return this.literal('true', 1);
      case 0x66:
        return this.literal('false', 1);
      case 0x6e:
        return this.literal('null', 1);
    }
    if (c >= 0x31 && c <= 0x39) return this.oneToNine;
    return this.fail(c, 'looking for beginning of value');
  }

  // pushParseState: the nesting that goes past the limit fails on its opening bracket.
  private push(c: number, state: 'key' | 'array'): boolean {
    this.stack.push(state);
    if (this.stack.length <= this.maxDepth) return false;
    this.fail(c, 'exceeded max depth');
    return true;
  }

  private beginValueOrEmpty(c: number): Step | null {
    if (WS.has(c)) return this.beginValueOrEmpty;
    if (c === 0x5d) return this.endValue(c);
    return this.beginValue(c);
  }

  private beginStringOrEmpty(c: number): Step | null {
    if (WS.has(c)) return this.beginStringOrEmpty;
    if (c === 0x7d) {
      this.stack[this.stack.length - 1] = 'value';
      return this.endValue(c);
    }
    return this.beginString(c);
  }

  private beginString(c: number): Step | null {
    if (WS.has(c)) return this.beginString;
    if (c === 0x22) {
      this.keyStart = this.at;
      return this.inString;
    }
    return this.fail(c, 'looking for beginning of object key string');
  }

  private endValue(c: number): Step | null {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) {
      this.endTop = true;
      return this.endTopLevel(c);
    }
    if (WS.has(c)) return this.endValue;
    if (top === 'key') {
      if (c !== 0x3a) return this.fail(c, 'after object key');
      this.stack[this.stack.length - 1] = 'value';
      return this.beginValue;
    }
    if (top === 'value') {
      if (c === 0x2c) {
        this.stack[this.stack.length - 1] = 'key';
        return this.beginString;
      }
      if (c === 0x7d) return this.pop();
      return this.fail(c, 'after object key:value pair');
    }
    if (c === 0x2c) return this.beginValue;
    if (c === 0x5d) return this.pop();
    return this.fail(c, 'after array element');
  }

  private pop(): Step {
    this.stack.pop();
    this.listener?.close();
    if (this.stack.length === 0) this.endTop = true;
    return this.endValue;
  }

  private endTopLevel(c: number): Step | null {
    if (!WS.has(c)) return this.fail(c, 'after top-level value');
    return this.endTopLevel;
  }

  private inString(c: number): Step | null {
    if (c === 0x22) {
      if (this.listener && this.keyStart >= 0) {
        this.listener.key(this.bytes!.subarray(this.keyStart, this.at + 1));
        this.keyStart = -1;
      }
      return this.endValue;
    }
    if (c === 0x5c) return this.inStringEsc;
    if (c < 0x20) return this.fail(c, 'in string literal');
    return this.inString;
  }

  private inStringEsc(c: number): Step | null {
    if ('bfnrt\\/"'.includes(String.fromCharCode(c))) return this.inString;
    if (c === 0x75) return this.hexEscape(4);
    return this.fail(c, 'in string escape code');
  }

  private hexEscape(left: number): Step {
    return (c: number) => {
      if (!isHex(c)) return this.fail(c, 'in \\u hexadecimal character escape');
      return left === 1 ? this.inString : this.hexEscape(left - 1);
    };
  }

  private neg(c: number): Step | null {
    if (c === 0x30) return this.zero;
    if (c >= 0x31 && c <= 0x39) return this.oneToNine;
    return this.fail(c, 'in numeric literal');
  }

  private oneToNine(c: number): Step | null {
    return isDigit(c) ? this.oneToNine : this.zero(c);
  }

  private zero(c: number): Step | null {
    if (c === 0x2e) return this.dot;
    if (c === 0x65 || c === 0x45) return this.exp;
    return this.endValue(c);
  }

  private dot(c: number): Step | null {
    return isDigit(c) ? this.dotDigits : this.fail(c, 'after decimal point in numeric literal');
  }

  private dotDigits(c: number): Step | null {
    if (isDigit(c)) return this.dotDigits;
    if (c === 0x65 || c === 0x45) return this.exp;
    return this.endValue(c);
  }

  private exp(c: number): Step | null {
    return c === 0x2b || c === 0x2d ? this.expSign : this.expSign(c);
  }

  private expSign(c: number): Step | null {
    return isDigit(c) ? this.expDigits : this.fail(c, 'in exponent of numeric literal');
  }

  private expDigits(c: number): Step | null {
    return isDigit(c) ? this.expDigits : this.endValue(c);
  }

  private literal(word: string, at: number): Step {
    return (c: number) => {
      if (c !== word.charCodeAt(at)) return this.fail(c, `in literal ${word} (expecting '${word[at]}')`);
      return at === word.length - 1 ? this.endValue : this.literal(word, at + 1);
    };
  }
}

// Go's quoteChar: the byte as a rune, strconv.Quote'd, between single quotes.
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return "'\"'";
  return `'${quoteRune(c)}'`;
}

const NAMED_ESCAPES: Record<number, string> = {
  0x07: '\\a', 0x08: '\\b', 0x0c: '\\f', 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x0b: '\\v', 0x5c: '\\\\',
};

function quoteRune(c: number): string {
  if (NAMED_ESCAPES[c]) return NAMED_ESCAPES[c];
  if (c < 0x20 || c === 0x7f) return `\\x${c.toString(16).padStart(2, '0')}`;
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `\\u${c.toString(16).padStart(4, '0')}`;
  return String.fromCharCode(c);
}
