import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { ArrayLiteral, BoolExpr, Identifier, Literal, Query, SetExpr, SortField } from './ast.js';
import { FilterError, FilterSortError } from './errors.js';

export type FieldType = 'string' | 'number' | 'datetime' | 'bool';

/** A single-valued field: a drizzle column or any SQL expression of the row. */
export interface ScalarField {
  type: FieldType;
  sql: SQL | SQLWrapper;
  /**
   * The same field read as another type, used when a comparison's literal has that type: a service
   * policy's `type` is the controller's number (`type = 2`) and, as clients also write it, its name
   * (`type = "Bind"`). Sorting uses `sql`.
   */
  also?: { type: FieldType; sql: SQL | SQLWrapper };
}

/** A multi-valued field, filterable only through anyOf / allOf / count / isEmpty. */
export interface SetField {
  type: FieldType;
  set: true;
  /**
   * A FROM-able source yielding a `value` column, e.g. sql`json_each(${t.roleAttributes})` or
   * sql`(SELECT identity_id AS value FROM links WHERE links.policy_id = ${t.id})`.
   */
  values: SQL;
}

/** A JSON object TEXT column (tags); `<name>.<key>` addresses one entry, typed by the literal. */
export interface MapField {
  type: 'map';
  sql: SQL | SQLWrapper;
}

export type FieldMap = Record<string, ScalarField | SetField | MapField>;

export interface CompiledQuery {
  /** Parenthesised, so it can be AND-ed with other conditions as is. Absent = no predicate. */
  where?: SQL;
  /** Always ends with `id` ascending as the tie-breaker. */
  orderBy: SQL[];
  limit?: number | 'none';
  skip?: number;
}

/**
 * Bound parameters one filter may use. D1 accepts at most 100 per statement and the endpoint adds its own
 * (visibility, paging), so the filter gets a share of that.
 */
export const MAX_FILTER_PARAMS = 64;
/** Predicates (comparisons, isEmpty, bare fields, literals) one filter may contain. */
export const MAX_FILTER_PREDICATES = 128;
/** Only the first sort fields are used; the rest are checked but ignored. */
export const MAX_SORT_FIELDS = 5;

/** Compiles a parsed filter: predicate, order (with the id tie-breaker), and the filter's own skip/limit. */
export function compileQuery(query: Query, fields: FieldMap): CompiledQuery {
  const out: CompiledQuery = { orderBy: compileSort(query.sort, fields) };
  const where = compileWhere(query.where, fields);
  if (where) out.where = where;
  if (query.limit !== undefined) out.limit = query.limit;
  if (query.skip !== undefined) out.skip = query.skip;
  return out;
}

/** Compiles a predicate alone into a parenthesised SQL condition, or undefined when there is none. */
export function compileWhere(expr: BoolExpr | undefined, fields: FieldMap): SQL | undefined {
  if (!expr) return undefined;
  const ctx: Ctx = { fields, params: 0, predicates: 0, aliases: 0 };
  return sql`(${compileBool(ctx, expr, false).sql})`;
}

/** ORDER BY terms for the given sort fields, followed by `id` ascending unless id is already sorted on. */
export function compileSort(sort: readonly SortField[], fields: FieldMap): SQL[] {
  const terms: SQL[] = [];
  let hasId = false;
  sort.forEach((s, i) => {
    const expr = sortExpr(s.ident, fields);
    if (i >= MAX_SORT_FIELDS) return;
    if (s.ident.name === 'id') hasId = true;
    terms.push(s.descending ? sql`${expr} DESC` : sql`${expr} ASC`);
  });
  if (!hasId) terms.push(sql`${idExpr(fields)} ASC`);
  return terms;
}

function idExpr(fields: FieldMap): SQL | SQLWrapper {
  const id = lookup(fields, 'id');
  if (!id || id.type === 'map' || 'set' in id) throw new Error('field map has no scalar id field');
  return id.sql;
}

function sortExpr(ident: Identifier, fields: FieldMap): SQL | SQLWrapper {
  const f = lookup(fields, ident.name);
  if (f && f.type !== 'map' && !('set' in f)) return f.sql;
  if (f && 'set' in f) throw new FilterSortError(`sort field '${ident.name}' is multi-valued and cannot be sorted on`);
  const entry = f ? undefined : mapEntry(fields, ident.name);
  // Map entries sort by their JSON value: null first, then numbers, then text (SQLite's type order).
  if (entry) return sql`json_extract(${entry.doc}, ${entry.path})`;
  throw new FilterSortError(`invalid sort field '${ident.name}'`);
}

// ---------------------------------------------------------------------------------------------------------
// Predicates

interface Ctx {
  fields: FieldMap;
  params: number;
  predicates: number;
  aliases: number;
}

/**
 * SQL precedence classes, loosest first. Parentheses are written only where a child binds looser than its
 * parent: every level of parentheses costs SQLite parser stack, which is small (see MAX_NESTING_DEPTH).
 */
const Prec = { Or: 1, And: 2, Not: 3, Cmp: 4, Atom: 5 } as const;
type Prec = (typeof Prec)[keyof typeof Prec];

interface Node {
  sql: SQL;
  prec: Prec;
  /** For a NOT node: its operand, so that negating again removes the NOT instead of adding one. */
  negates?: Node;
}

const node = (s: SQL, prec: Prec): Node => ({ sql: s, prec });
const wrap = (n: Node, min: Prec): SQL => (n.prec < min ? sql`(${n.sql})` : n.sql);

function not(n: Node): Node {
  if (n.negates) return n.negates;
  return { sql: sql`NOT ${wrap(n, Prec.Not)}`, prec: Prec.Not, negates: n };
}

function join(items: Node[], op: 'AND' | 'OR'): Node {
  const prec = op === 'AND' ? Prec.And : Prec.Or;
  if (items.length === 1) return items[0];
  return node(sql.join(items.map((n) => wrap(n, prec)), sql.raw(` ${op} `)), prec);
}

function bind(ctx: Ctx, value: string | number): SQL {
  if (++ctx.params > MAX_FILTER_PARAMS) {
    throw new FilterError(`filter is too complex: it needs more than ${MAX_FILTER_PARAMS} values`);
  }
  return sql`${value}`;
}

function countPredicate(ctx: Ctx) {
  if (++ctx.predicates > MAX_FILTER_PREDICATES) {
    throw new FilterError(`filter is too complex: more than ${MAX_FILTER_PREDICATES} conditions`);
  }
}

/**
 * Compiles in negation normal form: `not` is pushed down to the predicates (De Morgan), which keeps the SQL
 * flat. This is exact because every predicate below yields 0 or 1, never NULL.
 */
function compileBool(ctx: Ctx, e: BoolExpr, negate: boolean): Node {
  switch (e.type) {
    case 'not':
      return compileBool(ctx, e.expr, !negate);
    case 'and':
    case 'or': {
      const items = e.items.map((i) => compileBool(ctx, i, negate));
      return join(items, (e.type === 'and') !== negate ? 'AND' : 'OR');
    }
    default: {
      countPredicate(ctx);
      const n = compilePredicate(ctx, e);
      return negate ? not(n) : n;
    }
  }
}

type Predicate = Exclude<BoolExpr, { type: 'and' | 'or' | 'not' }>;

function compilePredicate(ctx: Ctx, e: Predicate): Node {
  switch (e.type) {
    case 'bool':
      return node(bind(ctx, e.value ? 1 : 0), Prec.Atom);
    case 'isEmpty': {
      const set = resolveSet(ctx, e.set, 'isEmpty');
      return not(node(sql`EXISTS (SELECT 1 FROM ${set.values} AS ${alias(ctx)})`, Prec.Atom));
    }
    case 'ident': {
      const target = resolveField(ctx, e.ident);
      // A map entry used bare is read as `= true`.
      if (target.kind === 'map') return mapPredicate(ctx, target, { type: 'compare', op: '=', value: { kind: 'bool', value: true } });
      if (target.type !== 'bool') throw new FilterError(`symbol '${e.ident.name}' has type ${target.type} and cannot be used as a boolean condition`);
      return node(sql`${target.sql} IS NOT NULL AND ${target.sql} = 1`, Prec.And);
    }
    default:
      return operation(ctx, e);
  }
}

type Operation = Extract<BoolExpr, { type: 'compare' | 'contains' | 'in' | 'between' }>;
/** An operation without its left-hand side. */
type Op =
  | { type: 'compare'; op: Extract<Operation, { type: 'compare' }>['op']; value: Literal }
  | Omit<Extract<Operation, { type: 'contains' }>, 'lhs'>
  | Omit<Extract<Operation, { type: 'in' }>, 'lhs'>
  | Omit<Extract<Operation, { type: 'between' }>, 'lhs'>;

interface ScalarTarget {
  kind: 'scalar';
  type: FieldType;
  sql: SQL | SQLWrapper;
  also?: ScalarField['also'];
}
interface MapTarget {
  kind: 'map';
  doc: SQL;
  path: string;
  name: string;
}

function operation(ctx: Ctx, e: Operation): Node {
  const { lhs, ...op } = e;
  switch (lhs.kind) {
    case 'field': {
      const target = resolveField(ctx, lhs.ident);
      if (target.kind === 'map') return mapPredicate(ctx, target, op);
      const read = target.also && target.also.type !== target.type && rhsBaseType(op) === target.also.type ? target.also : target;
      return valuePredicate(ctx, read.sql, read.type, op, 'column');
    }
    case 'anyOf':
    case 'allOf': {
      const set = resolveSet(ctx, { kind: 'set', ident: lhs.ident }, lhs.kind);
      const a = alias(ctx);
      const element = valuePredicate(ctx, sql`${a}.value`, set.type, op, 'element');
      // allOf: no element fails the test, so an empty set qualifies.
      return lhs.kind === 'anyOf'
        ? node(sql`EXISTS (SELECT 1 FROM ${set.values} AS ${a} WHERE ${element.sql})`, Prec.Atom)
        : not(node(sql`EXISTS (SELECT 1 FROM ${set.values} AS ${a} WHERE ${not(element).sql})`, Prec.Atom));
    }
    case 'count': {
      const set = resolveSet(ctx, lhs.set, 'count');
      const count = sql`(SELECT count(*) FROM ${set.values} AS ${alias(ctx)})`;
      return valuePredicate(ctx, count, 'number', op, 'count');
    }
  }
}

/** The text of an operator in type errors, e.g. `not contains`. */
function opName(op: Op): string {
  switch (op.type) {
    case 'compare':
      return op.op;
    case 'contains':
      return `${op.negated ? 'not ' : ''}${op.caseInsensitive ? 'icontains' : 'contains'}`;
    default:
      return `${op.negated ? 'not ' : ''}${op.type}`;
  }
}

function typeError(op: Op, lhsType: string, rhsType: string): FilterError {
  return new FilterError(`operation ${opName(op)} is not supported with operands types ${lhsType}, ${rhsType}`);
}

/** The literal type an operation brings; arrays are reported as e.g. `string array`. */
function rhsType(op: Op): string {
  switch (op.type) {
    case 'compare':
      return op.value.kind;
    case 'contains':
      return op.value.kind;
    case 'in':
      return `${op.values.kind} array`;
    case 'between':
      return op.low.kind;
  }
}

/** The literal's type for operations whose result depends on it; `null` and `bool` included. */
function rhsBaseType(op: Op): Literal['kind'] {
  switch (op.type) {
    case 'compare':
      return op.value.kind;
    case 'contains':
      return op.value.kind;
    case 'in':
      return op.values.kind;
    case 'between':
      return op.low.kind;
  }
}

/**
 * A predicate on one value: a column (may be NULL), a set element (any JSON type, so its SQL type is
 * checked too) or a count (never NULL). Positive forms are false on NULL; `!=` and the `not` forms are
 * their negation, hence true on NULL, as the reference behaviour requires.
 */
function valuePredicate(ctx: Ctx, v: SQL | SQLWrapper, type: FieldType, op: Op, source: 'column' | 'element' | 'count'): Node {
  const rhs = rhsBaseType(op);
  if (rhs === 'null') {
    if (source !== 'column') throw typeError(op, type, 'null');
    return node(op.type === 'compare' && op.op === '!=' ? sql`${v} IS NOT NULL` : sql`${v} IS NULL`, Prec.Cmp);
  }
  checkTypes(op, type, rhs);
  const guard =
    source === 'count'
      ? undefined
      : source === 'column'
        ? sql`${v} IS NOT NULL`
        : type === 'string'
          ? sql`typeof(${v}) = 'text'`
          : type === 'bool'
            ? sql`typeof(${v}) = 'integer'`
            : sql`typeof(${v}) IN ('integer', 'real')`;
  const cond = condition(ctx, v, op);
  const positive = guard ? node(sql`${guard} AND ${wrap(cond, Prec.And)}`, Prec.And) : cond;
  return isNegative(op) ? not(positive) : positive;
}

/** Which field types each operation accepts, given the literal type (already known to be non-null). */
function checkTypes(op: Op, type: FieldType, rhs: Literal['kind']) {
  let ok: boolean;
  switch (op.type) {
    case 'compare':
      ok = rhs === type && (type !== 'bool' || op.op === '=' || op.op === '!=');
      break;
    case 'contains':
      ok = type === 'string' && rhs === 'string';
      break;
    case 'in':
      ok = rhs === type && type !== 'bool';
      break;
    case 'between':
      ok = rhs === type && (type === 'number' || type === 'datetime');
      break;
  }
  if (!ok) throw typeError(op, type, rhsType(op));
}

function isNegative(op: Op): boolean {
  return op.type === 'compare' ? op.op === '!=' : op.negated;
}

/** The positive comparison itself, for a non-NULL value of a matching type. */
function condition(ctx: Ctx, v: SQL | SQLWrapper, op: Op): Node {
  switch (op.type) {
    case 'compare': {
      const lit = op.value as Exclude<Literal, { kind: 'null' }>;
      const value = bind(ctx, lit.kind === 'bool' ? (lit.value ? 1 : 0) : lit.value);
      const sqlOp = op.op === '!=' ? '=' : op.op;
      return node(sql`${v} ${sql.raw(sqlOp)} ${value}`, Prec.Cmp);
    }
    case 'contains': {
      const needle = bind(ctx, op.value.value as string);
      // upper() on both sides in SQL, so both are folded the same way (ASCII letters, as SQLite does).
      return op.caseInsensitive
        ? node(sql`instr(upper(${v}), upper(${needle})) > 0`, Prec.Cmp)
        : node(sql`instr(${v}, ${needle}) > 0`, Prec.Cmp);
    }
    case 'in':
      // One JSON parameter for the whole list, whatever its length (see MAX_FILTER_PARAMS).
      return node(sql`${v} IN (SELECT value FROM json_each(${bind(ctx, arrayJson(op.values))}))`, Prec.Cmp);
    case 'between':
      return node(sql`${v} >= ${bind(ctx, op.low.value)} AND ${v} < ${bind(ctx, op.high.value)}`, Prec.And);
  }
}

function arrayJson(values: ArrayLiteral): string {
  return JSON.stringify(values.values.map((v) => v.value));
}

/**
 * A predicate on one map entry (`tags.owner`). The entry's JSON type must match the literal's type;
 * `= null` means absent or JSON null.
 */
function mapPredicate(ctx: Ctx, target: MapTarget, op: Op): Node {
  const rhs = rhsBaseType(op);
  const path = () => bind(ctx, target.path);
  const jsonType = () => sql`coalesce(json_type(${target.doc}, ${path()}), 'null')`;
  if (rhs === 'null') {
    const absent = node(sql`${jsonType()} = 'null'`, Prec.Cmp);
    return op.type === 'compare' && op.op === '!=' ? not(absent) : absent;
  }
  if (rhs === 'bool') {
    const lit = (op as { value: { value: boolean } }).value.value;
    const is = node(sql`${jsonType()} = ${bind(ctx, lit ? 'true' : 'false')}`, Prec.Cmp);
    return isNegative(op) ? not(is) : is;
  }
  if (rhs === 'datetime' || (rhs === 'number' && op.type === 'contains')) throw typeError(op, 'any', rhsType(op));
  const types = rhs === 'string' ? sql`= 'text'` : sql`IN ('integer', 'real')`;
  const guard = sql`${jsonType()} ${types}`;
  const cond = condition(ctx, sql`json_extract(${target.doc}, ${path()})`, op);
  const positive = node(sql`${guard} AND ${wrap(cond, Prec.And)}`, Prec.And);
  return isNegative(op) ? not(positive) : positive;
}

// ---------------------------------------------------------------------------------------------------------
// Symbols

/** Own properties only: a filter must not reach `constructor` or `toString` of the map object. */
function lookup(fields: FieldMap, name: string): FieldMap[string] | undefined {
  return Object.prototype.hasOwnProperty.call(fields, name) ? fields[name] : undefined;
}

function unknownSymbol(name: string): FilterError {
  return new FilterError(`unknown symbol '${name}'`);
}

/** `tags.a.b` → the tags column (only when it holds valid JSON) and the JSON path `$."a"."b"`. */
function mapEntry(fields: FieldMap, name: string): MapTarget | undefined {
  const dot = name.indexOf('.');
  if (dot < 0) return undefined;
  const f = lookup(fields, name.slice(0, dot));
  if (!f || f.type !== 'map') return undefined;
  // Key characters are limited to letters, '_' and '-' by the grammar, so quoting them needs no escaping.
  const path = `$${name
    .slice(dot + 1)
    .split('.')
    .map((k) => `."${k}"`)
    .join('')}`;
  return { kind: 'map', doc: sql`(CASE WHEN json_valid(${f.sql}) THEN ${f.sql} END)`, path, name };
}

function resolveField(ctx: Ctx, ident: Identifier): ScalarTarget | MapTarget {
  const f = lookup(ctx.fields, ident.name);
  if (f) {
    if ('set' in f) throw new FilterError(`symbol '${ident.name}' is multi-valued: use anyOf(${ident.name}), allOf(${ident.name}), count(${ident.name}) or isEmpty(${ident.name})`);
    if (f.type === 'map') throw new FilterError(`symbol '${ident.name}' is a map: address one entry, e.g. ${ident.name}.key`);
    return { kind: 'scalar', type: f.type, sql: f.sql, also: f.also };
  }
  const entry = mapEntry(ctx.fields, ident.name);
  if (entry) return entry;
  throw unknownSymbol(ident.name);
}

function resolveSet(ctx: Ctx, set: SetExpr, fn: string): SetField {
  const f = lookup(ctx.fields, set.ident.name);
  if (!f && !mapEntry(ctx.fields, set.ident.name)) throw unknownSymbol(set.ident.name);
  if (set.kind === 'from') {
    // The controller uses sub-queries internally only; no public field supports them.
    throw new FilterError(`sub-queries are not supported: from ${set.ident.name} where ...`);
  }
  if (!f || !('set' in f)) throw new FilterError(`symbol '${set.ident.name}' is not multi-valued and cannot be used with ${fn}`);
  return f;
}

function alias(ctx: Ctx): SQL {
  // Generated names, never user text.
  return sql.raw(`zq${++ctx.aliases}`);
}
