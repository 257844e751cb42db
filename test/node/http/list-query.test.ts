import { and, count } from 'drizzle-orm';
import { beforeAll, describe, expect, test } from 'vitest';
import { ApiError } from '../../../src/errors.js';
import {
  compileRoleFilter,
  DEFAULT_LIMIT,
  filterableFields,
  listMeta,
  MAX_LIMIT,
  MAX_OFFSET,
  resolveListQuery,
  UNLIMITED_REPORTED,
  type ListQueryOptions,
  type ListQueryParams,
} from '../../../src/crud/list-query.js';
import { fields, items, openFixture, type TestDb } from '../lib/zitiql-fixture.js';

let db: TestDb;
beforeAll(async () => {
  ({ db } = await openFixture());
});

/** Runs a list request the way a handler does: filter AND-ed in, ordered, paged, counted. */
async function list(query: ListQueryParams, options?: ListQueryOptions) {
  const q = resolveListQuery(query, fields, options);
  const rows = await db
    .select({ id: items.id })
    .from(items)
    .where(q.where)
    .orderBy(...q.orderBy)
    .limit(q.limit ?? -1)
    .offset(q.offset);
  const [{ n }] = await db.select({ n: count() }).from(items).where(q.where);
  return { ids: rows.map((r) => r.id), meta: listMeta(n, q.limit, q.offset, fields), q };
}

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error('expected an ApiError');
}

const paging = (query: ListQueryParams, options?: ListQueryOptions) => {
  const { limit, offset, effectiveLimit } = resolveListQuery(query, fields, options);
  return { limit, offset, effectiveLimit };
};

describe('limit and offset (section 1.2)', () => {
  test.each<[ListQueryParams, number, number]>([
    [{}, DEFAULT_LIMIT, 0],
    [{ limit: '' }, DEFAULT_LIMIT, 0],
    [{ limit: '7' }, 7, 0],
    [{ limit: '+7' }, 7, 0],
    [{ limit: '1' }, 1, 0],
    [{ limit: '0' }, DEFAULT_LIMIT, 0],
    [{ limit: '-2' }, DEFAULT_LIMIT, 0],
    [{ limit: '-9223372036854775808' }, DEFAULT_LIMIT, 0],
    // -1 means "no limit" in the reference; capped at the maximum here.
    [{ limit: '-1' }, MAX_LIMIT, 0],
    [{ limit: '500' }, 500, 0],
    [{ limit: '501' }, MAX_LIMIT, 0],
    [{ limit: '9223372036854775807' }, MAX_LIMIT, 0],
    [{ offset: '5' }, DEFAULT_LIMIT, 5],
    [{ offset: '-5' }, DEFAULT_LIMIT, 0],
    [{ offset: '-0' }, DEFAULT_LIMIT, 0],
    [{ offset: '100000' }, DEFAULT_LIMIT, 100000],
    [{ offset: '100001' }, DEFAULT_LIMIT, MAX_OFFSET],
    [{ offset: '99999999999' }, DEFAULT_LIMIT, MAX_OFFSET],
    [{ limit: '3', offset: '2' }, 3, 2],
  ])('%j → limit %i offset %i', (query, limit, offset) => {
    expect(paging(query)).toEqual({ limit, offset, effectiveLimit: limit });
  });

  test.each<[ListQueryParams, number, number]>([
    [{ filter: 'limit 5', limit: '20' }, 5, 0],
    [{ filter: 'limit 5', offset: '10' }, 5, 10],
    [{ filter: 'skip 3', limit: '20', offset: '10' }, 20, 3],
    [{ filter: 'skip 3' }, DEFAULT_LIMIT, 3],
    [{ filter: 'skip 3 limit 4', limit: '20', offset: '10' }, 4, 3],
    [{ filter: 'limit none' }, MAX_LIMIT, 0],
    [{ filter: 'limit none', limit: '5' }, MAX_LIMIT, 0],
    [{ filter: 'limit -1' }, MAX_LIMIT, 0],
    [{ filter: 'limit 0', limit: '5' }, DEFAULT_LIMIT, 0],
    [{ filter: 'limit -7' }, DEFAULT_LIMIT, 0],
    [{ filter: 'limit 9999' }, MAX_LIMIT, 0],
    [{ filter: 'skip -1' }, DEFAULT_LIMIT, 0],
    [{ filter: 'skip 200000' }, DEFAULT_LIMIT, MAX_OFFSET],
    [{ filter: 'name = "x" skip 1 limit 2' }, 2, 1],
  ])('filter paging wins: %j → limit %i offset %i', (query, limit, offset) => {
    expect(paging(query)).toEqual({ limit, offset, effectiveLimit: limit });
  });

  test.each(['abc', '1.5', '1e3', ' 5', '5 ', '0x10', '١', '--1', '99999999999999999999', '9223372036854775808', '-9223372036854775809', 'null'])(
    'limit=%j is a 400 COULD_NOT_VALIDATE',
    (value) => {
      const e = apiError(() => resolveListQuery({ limit: value }, fields));
      expect(e.status).toBe(400);
      expect(e.code).toBe('COULD_NOT_VALIDATE');
      expect(e.causeDetail).toEqual({ field: 'limit', reason: 'limit in query must be of type integer: "string"', value });
    },
  );

  test('a bad offset is reported on its own field, even when the filter sets skip', () => {
    const e = apiError(() => resolveListQuery({ offset: '2.5', filter: 'skip 1' }, fields));
    expect(e.causeDetail).toEqual({ field: 'offset', reason: 'offset in query must be of type integer: "string"', value: '2.5' });
  });

  test('role-attribute lists: only the filter pages, without default or maximum', () => {
    const only: ListQueryOptions = { filterPagingOnly: true };
    expect(paging({ limit: '5', offset: '3' }, only)).toEqual({ limit: null, offset: 0, effectiveLimit: UNLIMITED_REPORTED });
    expect(paging({ filter: 'skip 1 limit 2', limit: '5', offset: '3' }, only)).toEqual({ limit: 2, offset: 1, effectiveLimit: 2 });
    expect(paging({ filter: 'limit 9999' }, only)).toMatchObject({ limit: 9999 });
    expect(paging({ filter: 'limit none' }, only)).toMatchObject({ limit: null });
    expect(paging({ filter: 'limit -1' }, only)).toMatchObject({ limit: null });
    expect(paging({ filter: 'limit 0' }, only)).toMatchObject({ limit: null });
  });
});

describe('end to end against SQLite', () => {
  test('defaults: first page by id', async () => {
    const r = await list({});
    expect(r.ids).toEqual(['E5', 'a1', 'b2', 'c3', 'd4', 'f6']);
    expect(r.meta.pagination).toEqual({ limit: 10, offset: 0, totalCount: 6 });
  });

  test('pages', async () => {
    expect((await list({ limit: '2' })).ids).toEqual(['E5', 'a1']);
    expect((await list({ limit: '2', offset: '2' })).ids).toEqual(['b2', 'c3']);
    expect((await list({ limit: '2', offset: '5' })).ids).toEqual(['f6']);
    expect((await list({ filter: 'isAdmin sort by cost desc skip 1 limit 1' })).ids).toEqual(['a1']);
  });

  test('offset past the end, and above the maximum', async () => {
    const past = await list({ offset: '6' });
    expect(past.ids).toEqual([]);
    expect(past.meta.pagination).toEqual({ limit: 10, offset: 6, totalCount: 6 });
    const huge = await list({ offset: '1000000', limit: '1' });
    expect(huge.ids).toEqual([]);
    expect(huge.meta.pagination).toEqual({ limit: 1, offset: MAX_OFFSET, totalCount: 6 });
  });

  test('totalCount counts all matches before paging', async () => {
    const r = await list({ filter: 'not isEmpty(targets)', limit: '1' });
    expect(r.ids).toEqual(['E5']);
    expect(r.meta.pagination.totalCount).toBe(4);
  });

  test('limit none and -1 are capped at the maximum', async () => {
    expect((await list({ filter: 'limit none' })).meta.pagination.limit).toBe(MAX_LIMIT);
    expect((await list({ limit: '-1' })).ids).toHaveLength(6);
  });

  test('no limit at all for role-attribute style lists', async () => {
    const r = await list({ filter: 'sort by name desc' }, { filterPagingOnly: true });
    expect(r.ids).toEqual(['f6', 'E5', 'd4', 'b2', 'a1', 'c3']);
    expect(r.meta.pagination.limit).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe('sort (section 1.4)', () => {
  test('the sort parameter applies unless the filter sorts', async () => {
    expect((await list({ sort: 'cost desc' })).ids).toEqual(['f6', 'b2', 'a1', 'E5', 'd4', 'c3']);
    expect((await list({ sort: 'cost desc', filter: 'sort by name' })).ids).toEqual(['c3', 'a1', 'b2', 'd4', 'E5', 'f6']);
    expect((await list({ sort: ' ' })).ids).toEqual(['E5', 'a1', 'b2', 'c3', 'd4', 'f6']);
    // The filter's sort wins, so the parameter is not even read.
    expect((await list({ sort: 'nope', filter: 'sort by name' })).ids[0]).toBe('c3');
  });

  test.each<[ListQueryParams, string]>([
    [{ sort: 'nope' }, "invalid sort field 'nope'"],
    [{ sort: 'roleAttributes' }, "sort field 'roleAttributes' is multi-valued and cannot be sorted on"],
    [{ filter: 'sort by nope' }, "invalid sort field 'nope'"],
    [{ filter: 'name = "x" sort by targets' }, "sort field 'targets' is multi-valued and cannot be sorted on"],
    [{ sort: 'name up' }, 'Unexpected symbol: "up" at line: 1 column: 5. line: 1, column: 5, symbol: up'],
    [{ sort: 'name; DROP TABLE items' }, 'Unexpected symbol: ";" at line: 1 column: 4. line: 1, column: 4, symbol: ;'],
  ])('%j → 400 INVALID_SORT_IDENTIFIER', (query, message) => {
    const e = apiError(() => resolveListQuery(query, fields));
    expect([e.status, e.code]).toEqual([400, 'INVALID_SORT_IDENTIFIER']);
    expect(e.message).toBe('The sort order supplied is invalid');
    expect(e.causeDetail).toEqual({ code: 'UNHANDLED', message });
  });
});

describe('filter errors (section 1.7)', () => {
  test.each<[string, string]>([
    ['nmae = "x"', "unknown symbol 'nmae'"],
    ['type = "Dial" and cost = "1"', "unknown symbol 'type'"],
    ['cost = "1"', 'operation = is not supported with operands types number, string'],
    ['name = "x" and desc = 1', 'Unexpected symbol: "desc" at line: 1 column: 15. line: 1, column: 15, symbol: desc'],
    ['x'.repeat(5000), 'filter is too long: 5000 characters, at most 4096 are accepted'],
  ])('%s', (filter, message) => {
    const e = apiError(() => resolveListQuery({ filter }, fields));
    expect([e.status, e.code, e.message]).toEqual([400, 'INVALID_FILTER', 'The filter query supplied is invalid']);
    expect(e.causeDetail).toEqual({ code: 'UNHANDLED', message });
  });

  test('a blank filter means everything', () => {
    expect(resolveListQuery({ filter: '   ' }, fields).where).toBeUndefined();
  });

  test('a filter error is reported before a sort parameter error', () => {
    expect(apiError(() => resolveListQuery({ filter: 'nope', sort: 'nope' }, fields)).code).toBe('INVALID_FILTER');
  });
});

describe('meta', () => {
  test('filterableFields lists the public names, tags included', () => {
    const names = filterableFields(fields);
    expect(names).toEqual(expect.arrayContaining(['id', 'createdAt', 'updatedAt', 'isSystem', 'tags', 'name', 'roleAttributes']));
    expect(names.filter((n) => n === 'tags')).toHaveLength(1);
    expect(filterableFields({ id: fields.id })).toEqual(['id', 'tags']);
  });

  test('listMeta reports the effective paging and omits an empty field list', () => {
    expect(listMeta(37, 10, 20, fields)).toEqual({ pagination: { limit: 10, offset: 20, totalCount: 37 }, filterableFields: filterableFields(fields) });
    expect(listMeta(3, null, 0, [])).toEqual({ pagination: { limit: Number.MAX_SAFE_INTEGER, offset: 0, totalCount: 3 } });
    expect(listMeta(1, 1, 0, ['id'])).toEqual({ pagination: { limit: 1, offset: 0, totalCount: 1 }, filterableFields: ['id'] });
  });
});

describe('roleFilter / roleSemantic (section 3.5)', () => {
  async function select(roleFilter: string[] | undefined, semantic?: string, filter?: string) {
    const pre = compileRoleFilter(roleFilter, semantic, items.roleAttributes, items.id);
    const q = resolveListQuery({ filter }, fields);
    const rows = await db.select({ id: items.id }).from(items).where(and(pre, q.where)).orderBy(...q.orderBy);
    return rows.map((r) => r.id);
  }

  test.each<[string[], string | undefined, string[]]>([
    [['#eu'], undefined, ['a1', 'd4']],
    [['#eu', '#sales'], undefined, ['a1']],
    [['#eu', '#sales'], 'AllOf', ['a1']],
    [['#eu', '#sales'], 'allof', ['a1']],
    [['#eu', '#sales'], 'AnyOf', ['a1', 'b2', 'd4']],
    [['#eu', '#sales'], 'ANYOF', ['a1', 'b2', 'd4']],
    [['#eu', '#eu'], '', ['a1', 'd4']],
    // #all is an ordinary attribute here.
    [['#all'], undefined, ['d4']],
    [['@c3'], undefined, ['c3']],
    [['@c3', '@nope', '@b2'], 'AnyOf', ['b2', 'c3']],
    [['#sales', '@c3'], undefined, ['a1', 'b2', 'c3']],
    [['#eu', '#sales', '@c3'], 'AllOf', ['a1', 'c3']],
    [['#nope'], 'AnyOf', []],
    [['#'], undefined, []],
    [["#x' OR 1=1 --"], undefined, []],
    [['@x" OR 1=1 --'], undefined, []],
    [['#1'], undefined, []],
  ])('%j %s', async (roleFilter, semantic, expected) => {
    expect(await select(roleFilter, semantic)).toEqual(expected);
  });

  test('no roleFilter means no pre-selection', () => {
    expect(compileRoleFilter(undefined, 'AnyOf', items.roleAttributes, items.id)).toBeUndefined();
    expect(compileRoleFilter([], 'bogus', items.roleAttributes, items.id)).toBeUndefined();
  });

  test('the user filter applies on top', async () => {
    expect(await select(['#sales'], 'AnyOf', 'isAdmin')).toEqual(['a1']);
  });

  test('an invalid semantic is a 400 on field semantic', () => {
    const e = apiError(() => compileRoleFilter(['#eu'], 'Some', items.roleAttributes, items.id));
    expect([e.status, e.code]).toEqual([400, 'COULD_NOT_VALIDATE']);
    expect(e.causeDetail).toMatchObject({ field: 'semantic', value: 'Some' });
  });

  test('a value without # or @ is a 400 on field roleFilter', () => {
    const e = apiError(() => compileRoleFilter(['#eu', 'sales'], undefined, items.roleAttributes, items.id));
    expect([e.status, e.code]).toEqual([400, 'COULD_NOT_VALIDATE']);
    expect(e.causeDetail).toEqual({
      field: 'roleFilter',
      reason: 'role entries must prefixed with # (to indicate role attributes) or @ (to indicate a name or id)',
      value: 'sales',
    });
  });
});
