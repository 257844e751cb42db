import { and, eq, type SQL } from 'drizzle-orm';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { beforeAll, describe, expect, test } from 'vitest';
import {
  compileQuery,
  compileSort,
  compileWhere,
  FilterError,
  FilterSortError,
  MAX_FILTER_PARAMS,
  MAX_FILTER_PREDICATES,
  parseFilter,
  type FieldMap,
} from '../../../src/lib/zitiql/index.js';
import { fields, items, openFixture, type TestDb } from './zitiql-fixture.js';

let db: TestDb;
beforeAll(async () => {
  ({ db } = await openFixture());
});

const ALL = ['E5', 'a1', 'b2', 'c3', 'd4', 'f6'];
const except = (...ids: string[]) => ALL.filter((id) => !ids.includes(id));

/** Ids of the rows matching the filter, in the compiled order. */
async function run(filter: string, map: FieldMap = fields, extra?: SQL): Promise<string[]> {
  const q = compileQuery(parseFilter(filter), map);
  const rows = await db
    .select({ id: items.id })
    .from(items)
    .where(and(extra, q.where))
    .orderBy(...q.orderBy);
  return rows.map((r) => r.id);
}

const matches = async (filter: string) => (await run(filter)).sort();

function compileError(filter: string): FilterError {
  try {
    compileQuery(parseFilter(filter), fields);
  } catch (e) {
    expect(e).toBeInstanceOf(FilterError);
    return e as FilterError;
  }
  throw new Error(`expected a filter error for ${filter}`);
}

describe('string fields', () => {
  test.each([
    ['name = "alpha"', ['a1']],
    ['name != "alpha"', except('a1')],
    ['descr = "Hello World"', ['a1']],
    ['descr != "Hello World"', except('a1')],
    ['descr = null', ['b2']],
    ['descr != null', except('b2')],
    ['name < "beta"', ['a1', 'c3']],
    ['name <= "beta"', ['a1', 'b2', 'c3']],
    ['name >= "delta"', ['E5', 'd4', 'f6']],
    ['name > "delta"', ['E5', 'f6']],
    ['name in ["alpha", "Gamma", "nope"]', ['a1', 'c3']],
    ['name not in ["alpha", "Gamma"]', ['E5', 'b2', 'd4', 'f6']],
    ['descr not in ["Hello World"]', except('a1')],
    ['descr contains "ello"', ['a1', 'c3']],
    ['descr contains "Ello"', []],
    ['descr contains ""', except('b2')],
    ['descr not contains "ello"', ['E5', 'b2', 'd4', 'f6']],
    ['descr icontains "HELLO"', ['a1', 'c3']],
    ['descr icontains "zeta"', ['f6']],
    ['descr icontains "COLE"', ['d4']],
    ['descr not icontains "hello"', ['E5', 'b2', 'd4', 'f6']],
    ['upperName = "GAMMA"', ['c3']],
    ['id = "a1" or id = "A1"', ['a1']],
  ])('%s', async (filter, expected) => {
    expect(await matches(filter)).toEqual(expected);
  });

  test('icontains folds ASCII letters only, the same way on both sides', async () => {
    expect(await matches('descr icontains "ÉCOLE"')).toEqual([]);
    expect(await matches('descr icontains "école"')).toEqual(['d4']);
  });
});

describe('number, datetime and bool fields', () => {
  test.each([
    ['cost = 5', ['a1']],
    ['cost = 5.0', ['a1']],
    ['cost = 5e0', ['a1']],
    ['cost != 5', except('a1')],
    ['cost > 0', ['a1', 'b2', 'f6']],
    ['cost <= 0', ['E5', 'd4']],
    ['cost < -2', ['d4']],
    ['cost = null', ['c3']],
    ['cost between 0 and 10', ['E5', 'a1']],
    ['cost not between 0 and 10', ['b2', 'c3', 'd4', 'f6']],
    ['cost between -2.5 and -2.4', ['d4']],
    ['cost in [5, 100]', ['a1', 'f6']],
    ['cost in [-2.5]', ['d4']],
    ['cost not in [5, 100]', ['E5', 'b2', 'c3', 'd4']],
    ['createdAt = datetime(2024-01-01T00:00:00Z)', ['E5', 'a1']],
    ['createdAt < datetime(2024-01-01T00:00:00Z)', ['d4']],
    ['createdAt >= datetime(2024-01-01T01:00:00+01:00)', except('d4')],
    ['createdAt between datetime(2024-01-01T00:00:00Z) and datetime(2024-03-01T00:00:00Z)', ['E5', 'a1', 'b2']],
    ['createdAt not between datetime(2024-01-01T00:00:00Z) and datetime(2024-03-01T00:00:00Z)', ['c3', 'd4', 'f6']],
    ['createdAt in [datetime(2024-01-01T00:00:00Z), datetime(2024-05-01T12:00:00+02:00)]', ['E5', 'a1', 'f6']],
    ['createdAt = datetime(2023-12-31T23:59:59.999Z)', ['d4']],
    ['updatedAt > datetime(2024-06-01T00:00:00.1229Z)', ALL],
    ['updatedAt > datetime(2024-06-01T00:00:00.1231Z)', except('a1')],
    ['updatedAt = datetime(2024-06-01T00:00:00.1234Z)', []],
    ['expiresAt = null', ['E5', 'b2', 'c3', 'f6']],
    ['expiresAt != null', ['a1', 'd4']],
    ['expiresAt > datetime(2025-01-01T00:00:00Z)', ['a1']],
    ['expiresAt <= datetime(2025-01-01T00:00:00Z)', ['d4']],
    ['isAdmin', ['E5', 'a1', 'f6']],
    ['isAdmin = true', ['E5', 'a1', 'f6']],
    ['isAdmin = false', ['b2', 'd4']],
    ['isAdmin != true', ['b2', 'c3', 'd4']],
    ['isAdmin != false', ['E5', 'a1', 'c3', 'f6']],
    ['not isAdmin', ['b2', 'c3', 'd4']],
    ['isAdmin = null', ['c3']],
    ['isSystem', ['b2']],
    ['isSystem = false', except('b2')],
  ])('%s', async (filter, expected) => {
    expect(await matches(filter)).toEqual(expected);
  });
});

describe('set fields', () => {
  test.each([
    ['anyOf(roleAttributes) = "eu"', ['a1', 'd4']],
    // Elements of another type (E5 holds numbers) never equal a string, so `!=` holds for them.
    ['anyOf(roleAttributes) != "eu"', ['E5', 'a1', 'b2', 'd4']],
    ['allOf(roleAttributes) = "sales"', ['b2', 'c3', 'f6']],
    ['allOf(roleAttributes) != "sales"', ['E5', 'c3', 'd4', 'f6']],
    ['allOf(roleAttributes) contains "e"', ['a1', 'b2', 'c3', 'f6']],
    ['anyOf(roleAttributes) icontains "EU"', ['a1', 'd4']],
    ['anyOf(roleAttributes) not contains "e"', ['E5', 'd4']],
    ['anyOf(roleAttributes) in ["us", "sales"]', ['a1', 'b2', 'd4']],
    ['allOf(roleAttributes) not in ["eu"]', ['E5', 'b2', 'c3', 'f6']],
    ['anyOf(roleAttributes) < "b"', ['d4']],
    ['anyOf(roleAttributes) = "all"', ['d4']],
    ['count(roleAttributes) = 0', ['c3', 'f6']],
    ['count(roleAttributes) >= 2', ['E5', 'a1', 'd4']],
    ['count(roleAttributes) between 1 and 3', ['a1', 'b2']],
    ['count(roleAttributes) not in [0, 3]', ['a1', 'b2']],
    ['count(targets) in [2]', ['E5', 'a1', 'd4']],
    ['isEmpty(roleAttributes)', ['c3', 'f6']],
    ['not isEmpty(targets)', ['E5', 'a1', 'b2', 'd4']],
    ['anyOf(targets) = "z"', ['d4']],
    ['allOf(targets) = "x"', ['E5', 'b2', 'c3', 'f6']],
    ['anyOf(scores) > 2', ['E5']],
    ['allOf(scores) >= 1', ['E5', 'c3', 'f6']],
    ['anyOf(scores) between 2 and 3', ['E5']],
  ])('%s', async (filter, expected) => {
    expect(await matches(filter)).toEqual(expected);
  });
});

describe('map entries (tags)', () => {
  test.each([
    ['tags.owner = "alice"', ['a1']],
    ['tags.owner != "alice"', except('a1')],
    ['tags.owner icontains "alice"', ['a1', 'f6']],
    ['tags.owner contains "li"', ['a1']],
    ['tags.owner < "b"', ['a1', 'f6']],
    ['tags.owner in ["bob", "ALICE"]', ['b2', 'f6']],
    // Absent, JSON null and an unreadable tags document all count as null.
    ['tags.owner = null', ['E5', 'c3', 'd4']],
    ['tags.owner != null', ['a1', 'b2', 'f6']],
    ['tags.owner = "alice" or tags.owner = null', ['E5', 'a1', 'c3', 'd4']],
    ['tags.n = 3', ['a1']],
    ['tags.n = "3"', ['b2']],
    ['tags.n > 1', ['a1', 'd4']],
    ['tags.n between 0 and 3', ['d4', 'f6']],
    ['tags.n in [0, 3]', ['a1', 'f6']],
    ['tags.n != 3', except('a1')],
    ['tags.flag = true', ['a1']],
    ['tags.flag = false', ['b2']],
    ['tags.flag', ['a1']],
    ['tags.flag != true', except('a1')],
    ['not tags.flag', except('a1')],
    ['tags.my-key = "x"', ['d4']],
    ["'tags.my-key' = \"x\"", ['d4']],
    ['tags.nested.k = "v"', ['d4']],
    ['tags.nested = "{\\"k\\":\\"v\\"}"', []],
    ['tags.nested != null', ['d4']],
    ['tags.absent != "x"', ALL],
    ['tags.absent = "x"', []],
  ])('%s', async (filter, expected) => {
    expect(await matches(filter)).toEqual(expected);
  });
});

describe('boolean structure', () => {
  test.each([
    ['true', ALL],
    ['false', []],
    ['not true', []],
    ['not false', ALL],
    ['true and isAdmin', ['E5', 'a1', 'f6']],
    ['name = "alpha" or name = "beta" and cost > 5', ['a1', 'b2']],
    ['(name = "alpha" or name = "beta") and cost > 5', ['b2']],
    ['not (cost > 0)', ['E5', 'c3', 'd4']],
    ['not cost > 0 and name = "delta"', ALL],
    // `not` takes everything to its right: not ((cost > 0) and name = "delta").
    ['not (cost > 0) and name = "delta"', ALL],
    ['(not (cost > 0)) and name = "delta"', ['d4']],
    ['not (descr contains "ello" or isAdmin)', ['b2', 'd4']],
    ['not not isAdmin', ['E5', 'a1', 'f6']],
    ['not (isAdmin and not (cost > 10 or name = "alpha"))', ['a1', 'b2', 'c3', 'd4', 'f6']],
    ['isAdmin and not isEmpty(roleAttributes) and not anyOf(roleAttributes) = "x"', ['E5', 'a1']],
  ])('%s', async (filter, expected) => {
    expect(await matches(filter)).toEqual(expected);
  });

  test('the predicate stays intact when AND-ed with another condition', async () => {
    expect((await run('name = "beta" or name = "alpha"', fields, eq(items.isSystem, false))).sort()).toEqual(['a1']);
  });
});

describe('type checking and symbols', () => {
  test.each([
    ['cost = "5"', 'operation = is not supported with operands types number, string'],
    ['name = 5', 'operation = is not supported with operands types string, number'],
    ['name > datetime(2024-01-01T00:00:00Z)', 'operation > is not supported with operands types string, datetime'],
    ['createdAt > 5', 'operation > is not supported with operands types datetime, number'],
    ['cost > datetime(2024-01-01T00:00:00Z)', 'operation > is not supported with operands types number, datetime'],
    ['isAdmin = 1', 'operation = is not supported with operands types bool, number'],
    ['isAdmin > "x"', 'operation > is not supported with operands types bool, string'],
    ['name = true', 'operation = is not supported with operands types string, bool'],
    ['cost contains "1"', 'operation contains is not supported with operands types number, string'],
    ['name contains 5', 'operation contains is not supported with operands types string, number'],
    ['name not icontains "x" and cost icontains "1"', 'operation icontains is not supported with operands types number, string'],
    ['name between 1 and 2', 'operation between is not supported with operands types string, number'],
    ['cost not between datetime(2024-01-01T00:00:00Z) and datetime(2024-01-02T00:00:00Z)', 'operation not between is not supported with operands types number, datetime'],
    ['cost in ["a"]', 'operation in is not supported with operands types number, string array'],
    ['name not in [1]', 'operation not in is not supported with operands types string, number array'],
    ['isAdmin in ["x"]', 'operation in is not supported with operands types bool, string array'],
    ['anyOf(roleAttributes) = 5', 'operation = is not supported with operands types string, number'],
    ['anyOf(roleAttributes) = null', 'operation = is not supported with operands types string, null'],
    ['count(roleAttributes) = "1"', 'operation = is not supported with operands types number, string'],
    ['count(roleAttributes) != null', 'operation != is not supported with operands types number, null'],
    ['count(roleAttributes) contains "1"', 'operation contains is not supported with operands types number, string'],
    ['tags.x > datetime(2024-01-01T00:00:00Z)', 'operation > is not supported with operands types any, datetime'],
    ['tags.x contains 5', 'operation contains is not supported with operands types any, number'],
    ['tags.x in [datetime(2024-01-01T00:00:00Z)]', 'operation in is not supported with operands types any, datetime array'],
    ['name', "symbol 'name' has type string and cannot be used as a boolean condition"],
    ['roleAttributes = "x"', "symbol 'roleAttributes' is multi-valued: use anyOf(roleAttributes), allOf(roleAttributes), count(roleAttributes) or isEmpty(roleAttributes)"],
    ['roleAttributes', "symbol 'roleAttributes' is multi-valued: use anyOf(roleAttributes), allOf(roleAttributes), count(roleAttributes) or isEmpty(roleAttributes)"],
    ['anyOf(name) = "x"', "symbol 'name' is not multi-valued and cannot be used with anyOf"],
    ['isEmpty(name)', "symbol 'name' is not multi-valued and cannot be used with isEmpty"],
    ['count(tags.x) > 1', "symbol 'tags.x' is not multi-valued and cannot be used with count"],
    ['tags = "x"', "symbol 'tags' is a map: address one entry, e.g. tags.key"],
    ['nmae = "x"', "unknown symbol 'nmae'"],
    ['Name = "x"', "unknown symbol 'Name'"],
    ['name.first = "x"', "unknown symbol 'name.first'"],
    ['toString = "x"', "unknown symbol 'toString'"],
    ['constructor = "x"', "unknown symbol 'constructor'"],
    ['hasOwnProperty', "unknown symbol 'hasOwnProperty'"],
    ['anyOf(nope) = "x"', "unknown symbol 'nope'"],
    ['isEmpty(from servicePolicies where anyOf(identities) = "x")', "unknown symbol 'servicePolicies'"],
    ['isEmpty(from roleAttributes where name = "x")', 'sub-queries are not supported: from roleAttributes where ...'],
  ])('%s', (filter, message) => {
    expect(compileError(filter).message).toBe(message);
  });
});

describe('sorting', () => {
  test.each([
    ['', ALL],
    ['sort by cost', ['c3', 'd4', 'E5', 'a1', 'b2', 'f6']],
    ['sort by cost desc', ['f6', 'b2', 'a1', 'E5', 'd4', 'c3']],
    ['sort by createdAt', ['d4', 'E5', 'a1', 'b2', 'c3', 'f6']],
    ['sort by createdAt, name desc', ['d4', 'E5', 'a1', 'b2', 'c3', 'f6']],
    ['sort by createdAt asc, name asc', ['d4', 'a1', 'E5', 'b2', 'c3', 'f6']],
    ['sort by isAdmin desc', ['E5', 'a1', 'f6', 'b2', 'd4', 'c3']],
    ['sort by name', ['c3', 'a1', 'b2', 'd4', 'E5', 'f6']],
    ['sort by id desc', ['f6', 'd4', 'c3', 'b2', 'a1', 'E5']],
    ['sort by tags.owner', ['E5', 'c3', 'd4', 'f6', 'a1', 'b2']],
    ['sort by upperName desc', ['f6', 'c3', 'E5', 'd4', 'b2', 'a1']],
    ['isAdmin sort by cost desc', ['f6', 'a1', 'E5']],
    // At most five sort fields are used: the sixth (name) would put a1 first among the isSystem = false rows.
    ['sort by isSystem, isSystem, isSystem, isSystem, isSystem, name', ['E5', 'a1', 'c3', 'd4', 'f6', 'b2']],
  ])('%s', async (filter, expected) => {
    expect(await run(filter)).toEqual(expected);
  });

  test('the id tie-breaker is always last', () => {
    const dialect = new SQLiteSyncDialect();
    const render = (s: SQL) => dialect.sqlToQuery(s).sql;
    expect(compileSort([], fields).map(render)).toEqual(['"items"."id" ASC']);
    const terms = compileQuery(parseFilter('sort by name desc, cost'), fields).orderBy.map(render);
    expect(terms).toEqual(['"items"."name" DESC', '"items"."cost" ASC', '"items"."id" ASC']);
  });

  test.each([
    ['sort by nope', "invalid sort field 'nope'"],
    ['sort by tags', "invalid sort field 'tags'"],
    ['sort by toString', "invalid sort field 'toString'"],
    ['sort by name, name, name, name, name, nope', "invalid sort field 'nope'"],
    ['sort by roleAttributes', "sort field 'roleAttributes' is multi-valued and cannot be sorted on"],
    ['sort by targets desc', "sort field 'targets' is multi-valued and cannot be sorted on"],
  ])('%s is rejected', (filter, message) => {
    const call = () => compileQuery(parseFilter(filter), fields);
    expect(call).toThrow(FilterSortError);
    expect(call).toThrow(message);
  });

  test('a field map without id is a programming error', () => {
    expect(() => compileSort([], { name: fields.name })).toThrow(/no scalar id/);
  });
});

describe('compiled output', () => {
  const dialect = new SQLiteSyncDialect();

  test('paging and predicate parts', () => {
    expect(compileQuery(parseFilter(''), fields).where).toBeUndefined();
    expect(compileQuery(parseFilter('sort by name skip 3 limit none'), fields)).toMatchObject({ skip: 3, limit: 'none' });
    expect(compileQuery(parseFilter('limit 4'), fields)).toMatchObject({ limit: 4 });
    expect(compileWhere(undefined, fields)).toBeUndefined();
  });

  test('every literal is a bound parameter and the predicate is parenthesised', () => {
    const filter =
      'name = "m1\'; --" or descr contains "m2" or cost in [12345] or createdAt > datetime(2024-01-01T00:00:00Z) or tags.mark = "m3" or anyOf(roleAttributes) icontains "m4" or count(targets) between 777 and 778 or isAdmin = true';
    const where = compileWhere(parseFilter(filter).where, fields)!;
    const { sql: text, params } = dialect.sqlToQuery(where);
    expect(text.startsWith('(') && text.endsWith(')')).toBe(true);
    for (const marker of ['m1', 'm2', '12345', 'm3', 'm4', '777', '778', '1704067200000', 'mark']) expect(text).not.toContain(marker);
    expect(params).toEqual(expect.arrayContaining(["m1'; --", 'm2', '[12345]', 1704067200000, '$."mark"', 'm3', 'm4', 777, 778, 1]));
  });

  test('an in-list costs one parameter whatever its length', async () => {
    const ids = Array.from({ length: 500 }, (_, i) => `"i${i}"`).join(',');
    const where = compileWhere(parseFilter(`id in [${ids}, "a1"]`).where, fields)!;
    expect(dialect.sqlToQuery(where).params).toHaveLength(1);
    expect(await matches(`id in [${ids}, "a1"]`)).toEqual(['a1']);
  });

  test('the number of parameters and predicates is capped', () => {
    const params = Array.from({ length: MAX_FILTER_PARAMS + 1 }, (_, i) => `cost = ${i}`).join(' or ');
    expect(() => compileQuery(parseFilter(params), fields)).toThrow(/too complex/);
    const preds = Array.from({ length: MAX_FILTER_PREDICATES + 1 }, () => 'isEmpty(targets)').join(' or ');
    expect(() => compileQuery(parseFilter(preds), fields)).toThrow(/too complex/);
    const okPreds = Array.from({ length: MAX_FILTER_PREDICATES }, () => 'isEmpty(targets)').join(' or ');
    expect(() => compileQuery(parseFilter(okPreds), fields)).not.toThrow();
  });
});
