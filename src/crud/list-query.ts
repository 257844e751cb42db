import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import {
  compileSort,
  compileWhere,
  FilterError,
  FilterSortError,
  parseFilter,
  parseSortList,
  type FieldMap,
  type Query,
  type SortField,
} from '../lib/zitiql/index.js';
import { fieldError, messageError } from '../errors.js';
import type { ReadAhead } from '../db/list-page.js';

export { commonFields, constantField, jsonArraySet, linkedSet, type FieldMap } from '../lib/zitiql/index.js';

/** Paging constants of the reference controller (section 1.2). */
export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 500;
export const MAX_OFFSET = 100_000;
/**
 * `meta.pagination.limit` for an unlimited list. The reference reports 2^63-1, which a JavaScript number
 * cannot hold exactly (it would print as 9223372036854776000 and overflow the int64 of Go clients);
 * 2^53-1 still means "no limit" and parses everywhere.
 */
export const UNLIMITED_REPORTED = Number.MAX_SAFE_INTEGER;

/** The list parameters: numbers as the router converts them, or the raw query text. */
export interface ListQueryParams {
  filter?: string;
  limit?: number | string;
  offset?: number | string;
  sort?: string;
  /** The page, already read with the session check (src/http/register.ts `ListReadAhead`); used when it is this list's. */
  readAhead?: ReadAhead;
}

export interface ResolvedListQuery {
  /** The user filter, parenthesised; AND it with the endpoint's own restrictions. */
  where?: SQL;
  /** Ends with id ascending. */
  orderBy: SQL[];
  /** null = no limit (pass `limit ?? -1` to SQLite, where -1 means unlimited). */
  limit: number | null;
  offset: number;
  /** The limit to report in `meta.pagination`. */
  effectiveLimit: number;
}

export interface ListQueryOptions {
  /**
   * For the `*-role-attributes` lists (section 3.4): the `limit`, `offset` and `sort` query parameters are
   * ignored and only the filter's own `sort by` / `skip` / `limit` apply, without default or maximum.
   */
  filterPagingOnly?: boolean;
}

/**
 * Resolves `filter`, `limit`, `offset` and `sort` of a list request into SQL parts (section 1.2):
 * the filter's `limit`/`skip`/`sort by` win over the query parameters, each decided on its own; for what the
 * filter leaves open, if either `limit` or `offset` is in the query both query values are used (a missing
 * one counts as 0); then limit absent, 0 or below -1 → 10, above 500 → 500, offset clamped to 0..100000.
 */
export function resolveListQuery(query: ListQueryParams, fields: FieldMap, options: ListQueryOptions = {}): ResolvedListQuery {
  // The parameters are checked first, as the reference's parameter binder does before the handler runs.
  const queryLimit = integerParam('limit', query.limit);
  const queryOffset = integerParam('offset', query.offset);

  const parsed = parseUserFilter(query.filter);
  const where = filterErrors(() => compileWhere(parsed.where, fields));
  const orderBy = filterErrors(() => compileSort(sortFields(parsed, options.filterPagingOnly ? undefined : query.sort), fields));

  let limit: number | null;
  let offset: number | undefined = parsed.skip;
  if (options.filterPagingOnly) {
    const l = parsed.limit;
    limit = l === undefined || l === 'none' || l <= 0 ? null : l;
  } else {
    let l: number | 'none' | undefined = parsed.limit;
    if (queryLimit !== undefined || queryOffset !== undefined) {
      l ??= queryLimit ?? 0;
      offset ??= queryOffset ?? 0;
    }
    limit = clampLimit(l);
  }
  offset = offset === undefined || offset < 0 ? 0 : Math.min(offset, MAX_OFFSET);
  return { ...(where ? { where } : {}), orderBy, limit, offset: offset || 0, effectiveLimit: effectiveLimit(limit) };
}

/**
 * Limit clamping. `-1` and `limit none` mean "no limit" in the reference, bypassing the 500 maximum
 * (a quirk the reference allows to drop); they are capped at 500 here so no request can read a whole table.
 */
function clampLimit(limit: number | 'none' | undefined): number {
  if (limit === 'none' || limit === -1) return MAX_LIMIT;
  if (limit === undefined || limit === 0 || limit < -1) return DEFAULT_LIMIT;
  return Math.min(limit, MAX_LIMIT);
}

/** The value reported as `meta.pagination.limit`. */
export function effectiveLimit(limit: number | null): number {
  return limit ?? UNLIMITED_REPORTED;
}

/** An integer query parameter; absent or empty = undefined. Anything else non-int64 is a 400. */
function integerParam(field: 'limit' | 'offset', raw: number | string | undefined): number | undefined {
  if (typeof raw === 'number') return raw;
  if (raw === undefined || raw === '') return undefined;
  if (!/^[+-]?\d{1,19}$/.test(raw) || BigInt(raw) > 9223372036854775807n || BigInt(raw) < -9223372036854775808n) {
    throw fieldError(field, `${field} in query must be of type integer: "string"`, raw);
  }
  return Number(raw);
}

function parseUserFilter(filter: string | undefined): Query {
  // Blank text (spaces, tabs, line breaks) parses as an empty filter; other characters are the parser's call.
  if (filter === undefined || filter === '') return { sort: [] };
  return filterErrors(() => parseFilter(filter));
}

/** The filter's `sort by` wins; otherwise the `sort` parameter. A malformed `sort` parameter is a sort error. */
function sortFields(parsed: Query, sortParam: string | undefined): SortField[] {
  if (parsed.sort.length > 0 || sortParam === undefined) return parsed.sort;
  try {
    return parseSortList(sortParam);
  } catch (e) {
    if (e instanceof FilterError) throw messageError('INVALID_SORT_IDENTIFIER', e.message);
    throw e;
  }
}

/** Maps filter-language errors to the API's: sort errors → INVALID_SORT_IDENTIFIER, others → INVALID_FILTER. */
function filterErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof FilterSortError) throw messageError('INVALID_SORT_IDENTIFIER', e.message);
    if (e instanceof FilterError) throw messageError('INVALID_FILTER', e.message);
    throw e;
  }
}

/** The `filterableFields` of a list: the public field names, `tags` included. */
export function filterableFields(fields: FieldMap): string[] {
  const names = Object.keys(fields);
  if (!names.includes('tags')) names.push('tags');
  return names;
}

export interface ListMeta {
  pagination: { limit: number; offset: number; totalCount: number };
  filterableFields?: string[];
}

/** The `meta` of a list response (section 1.3). An empty field list is omitted, as the reference does. */
export function listMeta(totalCount: number, limit: number | null, offset: number, fields: FieldMap | readonly string[]): ListMeta {
  const names = Array.isArray(fields) ? [...fields] : filterableFields(fields as FieldMap);
  const meta: ListMeta = { pagination: { limit: effectiveLimit(limit), offset, totalCount } };
  if (names.length > 0) meta.filterableFields = names;
  return meta;
}

const ROLE_PREFIX_REASON = 'role entries must prefixed with # (to indicate role attributes) or @ (to indicate a name or id)';

/**
 * The `roleFilter` / `roleSemantic` pre-selection of the management identity, service, edge-router and
 * posture-check lists (section 3.5): `#attr` values select entities having all (AllOf, the default) or any
 * (AnyOf) of the attributes, `@id` values are always OR-ed in, and `#all` is an ordinary attribute here.
 * Returns a parenthesised condition, or undefined when no roleFilter is given.
 */
export function compileRoleFilter(
  roleFilter: readonly string[] | undefined,
  roleSemantic: string | undefined,
  roleAttributes: SQL | SQLWrapper,
  id: SQL | SQLWrapper,
): SQL | undefined {
  if (!roleFilter || roleFilter.length === 0) return undefined;
  const semantic = roleSemantic === undefined || roleSemantic === '' ? 'allof' : roleSemantic.toLowerCase();
  if (semantic !== 'allof' && semantic !== 'anyof') throw fieldError('semantic', 'invalid semantic, must be one of AllOf or AnyOf', roleSemantic);
  const attrs: string[] = [];
  const ids: string[] = [];
  for (const role of roleFilter) {
    if (role.startsWith('#')) attrs.push(role.slice(1));
    else if (role.startsWith('@')) ids.push(role.slice(1));
    // The reference answers 500 here (a quirk); a bad value is the caller's error.
    else throw fieldError('roleFilter', ROLE_PREFIX_REASON, role);
  }
  const have = sql`json_each(CASE WHEN json_valid(${roleAttributes}) THEN ${roleAttributes} ELSE '[]' END)`;
  const parts: SQL[] = [];
  // Each list is one JSON parameter, whatever its length (D1 limits bound parameters per statement).
  if (attrs.length > 0) {
    const wanted = JSON.stringify([...new Set(attrs)]);
    parts.push(
      semantic === 'anyof'
        ? sql`EXISTS (SELECT 1 FROM ${have} AS zr_have WHERE zr_have.value IN (SELECT value FROM json_each(${wanted})))`
        : sql`NOT EXISTS (SELECT 1 FROM json_each(${wanted}) AS zr_want WHERE NOT EXISTS (SELECT 1 FROM ${have} AS zr_have WHERE zr_have.value = zr_want.value))`,
    );
  }
  if (ids.length > 0) parts.push(sql`${id} IN (SELECT value FROM json_each(${JSON.stringify([...new Set(ids)])}))`);
  return sql`(${sql.join(parts, sql` OR `)})`;
}
