import type { Position } from './ast.js';
import { FilterSyntaxError } from './errors.js';

export type TokenKind =
  | 'word' // an unquoted identifier or keyword
  | 'qident' // a single-quoted identifier
  | 'string'
  | 'number'
  | 'datetime'
  | 'op' // = != < <= > >=
  | '('
  | ')'
  | '['
  | ']'
  | ','
  | 'eof';

export interface Token {
  kind: TokenKind;
  /** The source text of the token. */
  text: string;
  pos: Position;
  /**
   * The whitespace right before the token. The grammar makes whitespace significant in places
   * (`and` needs it on both sides, `not in` takes exactly one character), so the parser checks it.
   */
  ws: string;
  /** Decoded value: string contents, identifier name, number, or datetime milliseconds. */
  value?: string | number;
  /** For numbers: written without fraction or exponent. */
  isInt?: boolean;
}

const WS = new Set([' ', '\t', '\r', '\n']);
const isLetter = (c: string | undefined) => c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', f: '\f', n: '\n', r: '\r', t: '\t' };

/** The identifier character set, also used inside single quotes. Digits are not allowed anywhere. */
export const IDENT_RE = /^[A-Za-z][A-Za-z_]*(\.[A-Za-z][A-Za-z_-]*)*$/;

/** Keeps error messages short whatever the offending text is. */
export function shortSymbol(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}

/** Splits a filter into tokens. Throws FilterSyntaxError on a character no token can start with. */
export function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const position = (offset: number): Position => ({ offset, line, column: offset - lineStart });
  const fail = (offset: number, symbol: string): never => {
    throw new FilterSyntaxError(line, offset - lineStart, shortSymbol(symbol));
  };

  for (;;) {
    const wsStart = i;
    while (i < input.length && WS.has(input[i])) {
      if (input[i] === '\n') {
        line++;
        lineStart = i + 1;
      }
      i++;
    }
    const ws = input.slice(wsStart, i);
    const start = i;
    const pos = position(start);
    const push = (kind: TokenKind, extra: Partial<Token> = {}) => tokens.push({ kind, text: input.slice(start, i), pos, ws, ...extra });
    if (i >= input.length) {
      tokens.push({ kind: 'eof', text: '<EOF>', pos, ws });
      return tokens;
    }
    const c = input[i];

    if (isLetter(c)) {
      i++;
      while (isLetter(input[i]) || input[i] === '_') i++;
      // Dotted parts (map keys, relation paths) may also contain '-'.
      while (input[i] === '.' && isLetter(input[i + 1])) {
        i += 2;
        while (isLetter(input[i]) || input[i] === '_' || input[i] === '-') i++;
      }
      const word = input.slice(start, i);
      // `datetime(` starts a literal only when the parenthesis follows immediately, as in the grammar.
      if (word.toLowerCase() === 'datetime' && input[i] === '(') {
        i = lexDatetime(input, start, i + 1, fail);
        push('datetime', { value: datetimeMillis(input.slice(start, i), (s) => fail(start, s)) });
        // The whitespace allowed inside the parentheses may hold line breaks.
        for (let k = start; k < i; k++) {
          if (input[k] === '\n') {
            line++;
            lineStart = k + 1;
          }
        }
      } else {
        push('word', { value: word });
      }
      continue;
    }

    if (isDigit(c) || (c === '-' && isDigit(input[i + 1]))) {
      if (c === '-') i++;
      if (input[i] === '0') i++;
      else while (isDigit(input[i])) i++;
      let isInt = true;
      if (input[i] === '.' && isDigit(input[i + 1])) {
        isInt = false;
        i++;
        while (isDigit(input[i])) i++;
      }
      if (input[i] === 'e' || input[i] === 'E') {
        let j = i + 1;
        if (input[j] === '+' || input[j] === '-') j++;
        if (isDigit(input[j])) {
          isInt = false;
          if (input[j] === '0') j++;
          else while (isDigit(input[j])) j++;
          i = j;
        }
      }
      const text = input.slice(start, i);
      const value = Number(text);
      // 1e999 would become Infinity, which no database can bind.
      if (!Number.isFinite(value)) fail(start, text);
      push('number', { value, isInt });
      continue;
    }

    if (c === '"') {
      i++;
      let value = '';
      for (;;) {
        const ch = input[i];
        if (ch === undefined) fail(start, input.slice(start));
        if (ch === '"') break;
        if (ch === '\\') {
          const esc = ESCAPES[input[i + 1]];
          if (esc === undefined) fail(i, input.slice(i, i + 2));
          value += esc;
          i += 2;
          continue;
        }
        if (ch.charCodeAt(0) < 0x20) fail(i, ch === '\n' ? '\\n' : `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`);
        value += ch;
        i++;
      }
      i++;
      push('string', { value });
      continue;
    }

    if (c === "'") {
      const end = input.indexOf("'", i + 1);
      const name = end < 0 ? '' : input.slice(i + 1, end);
      if (end < 0 || !IDENT_RE.test(name)) fail(start, end < 0 ? input.slice(start) : input.slice(start, end + 1));
      i = end + 1;
      push('qident', { value: name });
      continue;
    }

    if (c === '=' || c === '<' || c === '>' || c === '!') {
      i++;
      if (input[i] === '=' && c !== '=') i++;
      else if (c === '!') fail(start, '!');
      push('op');
      continue;
    }

    if (c === '(' || c === ')' || c === '[' || c === ']' || c === ',') {
      i++;
      push(c);
      continue;
    }

    const cp = input.codePointAt(i) ?? 0;
    fail(start, String.fromCodePoint(cp));
  }
}

/** Scans `datetime( ws* VALUE ws* )` from just after the parenthesis; returns the offset after `)`. */
function lexDatetime(input: string, start: number, i: number, fail: (offset: number, symbol: string) => never): number {
  while (WS.has(input[i])) i++;
  while (i < input.length && !WS.has(input[i]) && input[i] !== ')') i++;
  while (WS.has(input[i])) i++;
  if (input[i] !== ')') fail(start, input.slice(start, i + 1));
  return i + 1;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Converts the text of a `datetime(...)` token into Unix milliseconds, rejecting impossible dates. */
function datetimeMillis(token: string, fail: (symbol: string) => never): number {
  const inner = token.slice(token.indexOf('(') + 1, -1).trim();
  const m = RFC3339.exec(inner);
  if (!m) return fail(token);
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate() + (month === 2 && !isLeap(year) ? -1 : 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return fail(token);
  let ms = Date.UTC(2000, month - 1, day, hour, minute, second);
  // Date.UTC maps years 0-99 to 1900-1999, so the year is set separately.
  const d = new Date(ms);
  d.setUTCFullYear(year);
  ms = d.getTime();
  if (m[9] !== undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return fail(token);
    ms -= (m[9] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  // The fraction keeps sub-millisecond digits so that `>` against stored milliseconds stays exact.
  if (m[7] !== undefined) ms += Number(`0.${m[7]}`) * 1000;
  return ms;
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
