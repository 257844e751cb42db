/**
 * The syntax tree of a ZitiQL filter. The parser builds it without knowing any entity; the compiler checks
 * names and types against a field map and turns it into SQL.
 */

/** Where a node starts in the filter text (line 1-based, column 0-based, as ANTLR reports them). */
export interface Position {
  offset: number;
  line: number;
  column: number;
}

export type StringLiteral = { kind: 'string'; value: string };
/** `isInt` tells integers from floats; both compare numerically. */
export type NumberLiteral = { kind: 'number'; value: number; isInt: boolean };
/** `value` is Unix milliseconds, possibly fractional when the literal has sub-millisecond digits. */
export type DatetimeLiteral = { kind: 'datetime'; value: number; text: string };
export type BoolLiteral = { kind: 'bool'; value: boolean };
export type NullLiteral = { kind: 'null' };
export type Literal = StringLiteral | NumberLiteral | DatetimeLiteral | BoolLiteral | NullLiteral;
/** An array literal is never empty and all its elements have one kind. */
export type ArrayLiteral =
  | { kind: 'string'; values: StringLiteral[] }
  | { kind: 'number'; values: NumberLiteral[] }
  | { kind: 'datetime'; values: DatetimeLiteral[] };

export interface Identifier {
  /** The name without quotes, dotted parts included (`tags.owner`). */
  name: string;
  pos: Position;
}

/** A set operand: a set field, or a `from <set> where <query>` sub-query. */
export type SetExpr = { kind: 'set'; ident: Identifier } | { kind: 'from'; ident: Identifier; query: Query };

/** The left-hand side of an operation. */
export type Lhs =
  | { kind: 'field'; ident: Identifier }
  | { kind: 'anyOf'; ident: Identifier }
  | { kind: 'allOf'; ident: Identifier }
  | { kind: 'count'; set: SetExpr };

export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

export type BoolExpr =
  | { type: 'and'; items: BoolExpr[] }
  | { type: 'or'; items: BoolExpr[] }
  | { type: 'not'; expr: BoolExpr }
  | { type: 'bool'; value: boolean }
  | { type: 'isEmpty'; set: SetExpr }
  /** A boolean field used as a predicate (`isAdmin`). */
  | { type: 'ident'; ident: Identifier }
  | { type: 'compare'; lhs: Lhs; op: CompareOp; value: Literal }
  | { type: 'contains'; lhs: Lhs; negated: boolean; caseInsensitive: boolean; value: StringLiteral | NumberLiteral }
  | { type: 'in'; lhs: Lhs; negated: boolean; values: ArrayLiteral }
  | { type: 'between'; lhs: Lhs; negated: boolean; low: NumberLiteral | DatetimeLiteral; high: NumberLiteral | DatetimeLiteral };

export interface SortField {
  ident: Identifier;
  descending: boolean;
}

export interface Query {
  where?: BoolExpr;
  sort: SortField[];
  skip?: number;
  /** `'none'` = `limit none`. */
  limit?: number | 'none';
}
