import type { ArrayLiteral, BoolExpr, CompareOp, Identifier, Lhs, Literal, NumberLiteral, DatetimeLiteral, Query, SetExpr, SortField } from './ast.js';
import { FilterError, FilterSyntaxError } from './errors.js';
import { shortSymbol, tokenize, type Token } from './lexer.js';

/** Longer filters are refused before lexing: this bounds the work and the size of the generated SQL. */
export const MAX_FILTER_LENGTH = 4096;
/**
 * Parentheses, `not` and sub-queries nest at most this deep. Besides bounding the recursion, this keeps the
 * generated SQL within SQLite's parser stack (100 entries on libSQL 3.45), which nested SQL exhausts quickly:
 * at this depth the predicate still fits when embedded three sub-queries deep in an endpoint's own SQL.
 */
export const MAX_NESTING_DEPTH = 12;

/** Words that are keywords wherever they appear (case-insensitive), so they cannot be bare identifiers. */
const RESERVED = new Set([
  'and', 'or', 'not', 'in', 'between', 'contains', 'icontains', 'true', 'false', 'null',
  'sort', 'by', 'asc', 'desc', 'skip', 'limit', 'none', 'from', 'where',
]);
/** Function names are keywords only when `(` follows immediately. */
const FUNCTIONS = new Set(['anyof', 'allof', 'count', 'isempty']);
const OPERATOR_WORDS = new Set(['in', 'between', 'contains', 'icontains']);

/** Parses a complete filter (predicate and/or `sort by`, `skip`, `limit`). Blank text means "everything". */
export function parseFilter(input: string): Query {
  checkLength(input);
  const p = new Parser(tokenize(input));
  if (p.peek().kind === 'eof') return { sort: [] };
  const query = p.query(0);
  p.expectEnd();
  return query;
}

/** Parses the `sort` query parameter: the fields of a `sort by` clause without the keywords. */
export function parseSortList(input: string): SortField[] {
  checkLength(input);
  const p = new Parser(tokenize(input));
  if (p.peek().kind === 'eof') return [];
  const fields = p.sortFields(false);
  p.expectEnd();
  return fields;
}

function checkLength(input: string) {
  if (input.length > MAX_FILTER_LENGTH) {
    throw new FilterError(`filter is too long: ${input.length} characters, at most ${MAX_FILTER_LENGTH} are accepted`);
  }
}

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  peek(k = 0): Token {
    return this.tokens[Math.min(this.i + k, this.tokens.length - 1)];
  }

  private next(): Token {
    const t = this.peek();
    if (t.kind !== 'eof') this.i++;
    return t;
  }

  private fail(t: Token): never {
    throw new FilterSyntaxError(t.pos.line, t.pos.column, shortSymbol(t.text));
  }

  /** Whitespace is mandatory before this token (e.g. around `and`, after `in`). */
  private needWs(t: Token): Token {
    if (t.ws === '') this.fail(t);
    return t;
  }

  private expect(kind: Token['kind']): Token {
    const t = this.next();
    if (t.kind !== kind) this.fail(t);
    return t;
  }

  expectEnd() {
    if (this.peek().kind !== 'eof') this.fail(this.peek());
  }

  private isKw(t: Token, ...words: string[]): boolean {
    return t.kind === 'word' && words.includes(t.text.toLowerCase());
  }

  private isIdent(t: Token): boolean {
    return t.kind === 'qident' || (t.kind === 'word' && !RESERVED.has(t.text.toLowerCase()));
  }

  private ident(t: Token): Identifier {
    if (!this.isIdent(t)) this.fail(t);
    return { name: t.value as string, pos: t.pos };
  }

  query(depth: number): Query {
    const q: Query = { sort: [] };
    let any = false;
    if (!this.isKw(this.peek(), 'sort', 'skip', 'limit')) {
      q.where = this.boolExpr(depth);
      any = true;
    }
    if (this.isKw(this.peek(), 'sort')) {
      if (any) this.needWs(this.peek());
      this.next();
      const by = this.next();
      if (!this.isKw(by, 'by')) this.fail(by);
      this.needWs(by);
      q.sort = this.sortFields(true);
      any = true;
    }
    if (this.isKw(this.peek(), 'skip')) {
      if (any) this.needWs(this.peek());
      this.next();
      q.skip = this.integer();
      any = true;
    }
    if (this.isKw(this.peek(), 'limit')) {
      if (any) this.needWs(this.peek());
      this.next();
      if (this.isKw(this.peek(), 'none')) q.limit = (this.needWs(this.next()), 'none');
      else q.limit = this.integer();
    }
    return q;
  }

  /** `skip`/`limit` take an integer; floats and values beyond 2^53 are refused. */
  private integer(): number {
    const t = this.needWs(this.next());
    if (t.kind !== 'number' || !t.isInt || !Number.isSafeInteger(t.value)) this.fail(t);
    return t.value as number;
  }

  sortFields(wsBeforeFirst: boolean): SortField[] {
    const fields: SortField[] = [];
    for (;;) {
      const t = this.next();
      if (wsBeforeFirst && fields.length === 0) this.needWs(t);
      const ident = this.ident(t);
      let descending = false;
      if (this.isKw(this.peek(), 'asc', 'desc')) {
        descending = this.needWs(this.next()).text.toLowerCase() === 'desc';
      }
      fields.push({ ident, descending });
      if (this.peek().kind !== ',') return fields;
      this.next();
    }
  }

  /** `not` has the lowest precedence: it applies to the whole or-expression that follows. */
  private boolExpr(depth: number): BoolExpr {
    if (depth > MAX_NESTING_DEPTH) {
      throw new FilterError(`filter is nested too deeply: at most ${MAX_NESTING_DEPTH} levels of parentheses, not and sub-queries`);
    }
    if (this.isKw(this.peek(), 'not')) {
      this.next();
      this.needWs(this.peek());
      return { type: 'not', expr: this.boolExpr(depth + 1) };
    }
    return this.orExpr(depth);
  }

  private orExpr(depth: number): BoolExpr {
    const items = [this.andExpr(depth)];
    while (this.isKw(this.peek(), 'or') && this.peek().ws !== '') {
      this.next();
      this.needWs(this.peek());
      items.push(this.andExpr(depth));
    }
    return items.length === 1 ? items[0] : { type: 'or', items };
  }

  private andExpr(depth: number): BoolExpr {
    const items = [this.unary(depth)];
    while (this.isKw(this.peek(), 'and') && this.peek().ws !== '') {
      this.next();
      this.needWs(this.peek());
      items.push(this.unary(depth));
    }
    return items.length === 1 ? items[0] : { type: 'and', items };
  }

  private unary(depth: number): BoolExpr {
    return this.isKw(this.peek(), 'not') ? this.boolExpr(depth) : this.primary(depth);
  }

  private primary(depth: number): BoolExpr {
    const t = this.peek();
    if (t.kind === '(') {
      this.next();
      const e = this.boolExpr(depth + 1);
      this.expect(')');
      return e;
    }
    if (this.isKw(t, 'true', 'false')) {
      this.next();
      return { type: 'bool', value: t.text.toLowerCase() === 'true' };
    }
    const fn = t.kind === 'word' ? t.text.toLowerCase() : '';
    if (FUNCTIONS.has(fn) && this.peek(1).kind === '(' && this.peek(1).ws === '') {
      this.next();
      this.next();
      if (fn === 'isempty') {
        const set = this.setExpr(depth);
        this.expect(')');
        return { type: 'isEmpty', set };
      }
      let lhs: Lhs;
      if (fn === 'count') lhs = { kind: 'count', set: this.setExpr(depth) };
      else lhs = { kind: fn === 'anyof' ? 'anyOf' : 'allOf', ident: this.ident(this.next()) };
      this.expect(')');
      return this.operation(lhs);
    }
    if (this.isIdent(t)) {
      const ident = this.ident(this.next());
      return this.atOperator() ? this.operation({ kind: 'field', ident }) : { type: 'ident', ident };
    }
    return this.fail(t);
  }

  private setExpr(depth: number): SetExpr {
    if (!this.isKw(this.peek(), 'from')) return { kind: 'set', ident: this.ident(this.next()) };
    this.next();
    const ident = this.ident(this.needWs(this.next()));
    const where = this.needWs(this.next());
    if (!this.isKw(where, 'where')) this.fail(where);
    this.needWs(this.peek());
    return { kind: 'from', ident, query: this.query(depth + 1) };
  }

  private atOperator(): boolean {
    const t = this.peek();
    if (t.kind === 'op') return true;
    if (t.kind !== 'word') return false;
    const w = t.text.toLowerCase();
    return OPERATOR_WORDS.has(w) || (w === 'not' && this.peek(1).kind === 'word' && OPERATOR_WORDS.has(this.peek(1).text.toLowerCase()));
  }

  private operation(lhs: Lhs): BoolExpr {
    const t = this.next();
    if (t.kind === 'op') {
      const op = t.text as CompareOp;
      const v = this.next();
      const equality = op === '=' || op === '!=';
      const value = this.literal(v, equality);
      if (!value) this.fail(v);
      return { type: 'compare', lhs, op, value };
    }
    let negated = false;
    let kw = t;
    if (this.isKw(t, 'not')) {
      negated = true;
      kw = this.next();
    }
    const word = kw.text.toLowerCase();
    if (word === 'in') {
      // `lhs ws+ ["not" ws] "in" ws+ [...]`: exactly one whitespace character between not and in.
      this.needWs(t);
      if (negated && kw.ws.length !== 1) this.fail(kw);
      const open = this.needWs(this.next());
      if (open.kind !== '[') this.fail(open);
      return { type: 'in', lhs, negated, values: this.array() };
    }
    if (word === 'between') {
      this.needWs(t);
      if (negated) this.needWs(kw);
      const low = this.rangeBound(this.needWs(this.next()));
      const and = this.needWs(this.next());
      if (!this.isKw(and, 'and')) this.fail(and);
      const highTok = this.needWs(this.next());
      const high = this.rangeBound(highTok);
      if (high.kind !== low.kind) this.fail(highTok);
      return { type: 'between', lhs, negated, low, high };
    }
    if (word === 'contains' || word === 'icontains') {
      if (negated) this.needWs(kw);
      const v = this.needWs(this.next());
      const caseInsensitive = word === 'icontains';
      if (v.kind !== 'string' && (caseInsensitive || v.kind !== 'number')) this.fail(v);
      const value = this.literal(v, false) as { kind: 'string'; value: string } | NumberLiteral;
      return { type: 'contains', lhs, negated, caseInsensitive, value };
    }
    return this.fail(kw);
  }

  private rangeBound(t: Token): NumberLiteral | DatetimeLiteral {
    if (t.kind !== 'number' && t.kind !== 'datetime') this.fail(t);
    return this.literal(t, false) as NumberLiteral | DatetimeLiteral;
  }

  /** A scalar literal; `true`/`false`/`null` only where the grammar allows them (`=` and `!=`). */
  private literal(t: Token, equality: boolean): Literal | undefined {
    switch (t.kind) {
      case 'string':
        return { kind: 'string', value: t.value as string };
      case 'number':
        return { kind: 'number', value: t.value as number, isInt: t.isInt === true };
      case 'datetime':
        return { kind: 'datetime', value: t.value as number, text: t.text };
      case 'word': {
        if (!equality) return undefined;
        const w = t.text.toLowerCase();
        if (w === 'true' || w === 'false') return { kind: 'bool', value: w === 'true' };
        if (w === 'null') return { kind: 'null' };
        return undefined;
      }
      default:
        return undefined;
    }
  }

  /** A non-empty array of strings, numbers or datetimes, all of one kind; `[` is already consumed. */
  private array(): ArrayLiteral {
    const first = this.next();
    if (first.kind !== 'string' && first.kind !== 'number' && first.kind !== 'datetime') this.fail(first);
    const values: Literal[] = [this.literal(first, false)!];
    while (this.peek().kind === ',') {
      this.next();
      const t = this.next();
      if (t.kind !== first.kind) this.fail(t);
      values.push(this.literal(t, false)!);
    }
    this.expect(']');
    return { kind: first.kind, values } as ArrayLiteral;
  }
}
