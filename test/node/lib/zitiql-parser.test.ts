import { describe, expect, test } from 'vitest';
import {
  FilterError,
  FilterSyntaxError,
  MAX_FILTER_LENGTH,
  MAX_NESTING_DEPTH,
  parseFilter,
  parseSortList,
  type BoolExpr,
  type Lhs,
  type Literal,
  type SetExpr,
} from '../../../src/lib/zitiql/index.js';

/** A compact rendering of the tree, to assert structure and precedence in one string. */
function show(e: BoolExpr | undefined): string {
  if (!e) return '<none>';
  const lit = (l: Literal): string =>
    l.kind === 'string' ? JSON.stringify(l.value) : l.kind === 'null' ? 'null' : l.kind === 'datetime' ? `dt:${new Date(Math.floor(l.value)).toISOString()}` : String(l.value);
  const set = (s: SetExpr): string => (s.kind === 'set' ? s.ident.name : `from ${s.ident.name} where ${show(s.query.where)}`);
  const lhs = (l: Lhs): string => (l.kind === 'field' ? l.ident.name : l.kind === 'count' ? `count(${set(l.set)})` : `${l.kind}(${l.ident.name})`);
  switch (e.type) {
    case 'and':
    case 'or':
      return `(${e.items.map(show).join(` ${e.type} `)})`;
    case 'not':
      return `not ${show(e.expr)}`;
    case 'bool':
      return String(e.value);
    case 'ident':
      return `?${e.ident.name}`;
    case 'isEmpty':
      return `isEmpty(${set(e.set)})`;
    case 'compare':
      return `${lhs(e.lhs)} ${e.op} ${lit(e.value)}`;
    case 'contains':
      return `${lhs(e.lhs)} ${e.negated ? 'not ' : ''}${e.caseInsensitive ? 'icontains' : 'contains'} ${lit(e.value)}`;
    case 'in':
      return `${lhs(e.lhs)} ${e.negated ? 'not ' : ''}in [${e.values.values.map(lit).join(',')}]`;
    case 'between':
      return `${lhs(e.lhs)} ${e.negated ? 'not ' : ''}between ${lit(e.low)} ${lit(e.high)}`;
  }
}

const where = (f: string) => show(parseFilter(f).where);

function syntaxError(f: string): FilterSyntaxError {
  try {
    parseFilter(f);
  } catch (e) {
    expect(e).toBeInstanceOf(FilterSyntaxError);
    return e as FilterSyntaxError;
  }
  throw new Error(`expected a syntax error for ${JSON.stringify(f)}`);
}

describe('filter structure', () => {
  test('an empty or blank filter has no predicate and no paging', () => {
    expect(parseFilter('')).toEqual({ sort: [] });
    expect(parseFilter(' \t\r\n ')).toEqual({ sort: [] });
  });

  test('leading and trailing whitespace is allowed', () => {
    expect(where('\n name = "x" \t')).toBe('name = "x"');
  });

  test('predicate followed by sort by, skip and limit', () => {
    const q = parseFilter('name icontains "prod" sort by createdAt desc, name, id ASC skip 20 limit 50');
    expect(show(q.where)).toBe('name icontains "prod"');
    expect(q.sort.map((s) => [s.ident.name, s.descending])).toEqual([
      ['createdAt', true],
      ['name', false],
      ['id', false],
    ]);
    expect(q.skip).toBe(20);
    expect(q.limit).toBe(50);
  });

  test('a filter may be only sort, skip or limit, in that order', () => {
    expect(parseFilter('sort by name')).toMatchObject({ sort: [{ ident: { name: 'name' }, descending: false }] });
    expect(parseFilter('sort by name limit 5')).toMatchObject({ limit: 5 });
    expect(parseFilter('skip 5')).toEqual({ sort: [], skip: 5 });
    expect(parseFilter('skip 5 limit 3')).toEqual({ sort: [], skip: 5, limit: 3 });
    expect(parseFilter('limit 7')).toEqual({ sort: [], limit: 7 });
    expect(parseFilter('limit none')).toEqual({ sort: [], limit: 'none' });
    expect(parseFilter('LIMIT NONE')).toEqual({ sort: [], limit: 'none' });
    expect(parseFilter('limit -1')).toEqual({ sort: [], limit: -1 });
    expect(parseFilter('skip -3')).toEqual({ sort: [], skip: -3 });
    expect(parseFilter('true limit 0')).toMatchObject({ limit: 0 });
  });

  test('skip and limit take integers only, in order', () => {
    syntaxError('limit 1.5');
    syntaxError('limit 1e3');
    syntaxError('skip 2.0');
    syntaxError('limit "5"');
    syntaxError('limit');
    syntaxError('limit 5 skip 2');
    syntaxError('limit 1 sort by name');
    syntaxError('skip 1 sort by name');
    syntaxError('limit 99999999999999999999');
    syntaxError('limit none 5');
    syntaxError('limit5');
    syntaxError('name = "a" limit 5 limit 6');
  });

  test('sort by needs fields, and whitespace where the grammar has it', () => {
    syntaxError('sort by');
    syntaxError('sort name');
    syntaxError('sort by name,');
    syntaxError('sort by name desc desc');
    syntaxError('(a = 1)sort by name');
    syntaxError('a = "x"sort by name');
    expect(parseFilter('sort by name,createdAt desc ,id').sort.map((s) => s.ident.name)).toEqual(['name', 'createdAt', 'id']);
    expect(parseFilter("sort by 'name' desc").sort[0]).toMatchObject({ ident: { name: 'name' }, descending: true });
  });
});

describe('comparisons and literals', () => {
  test('all comparison operators, with or without whitespace', () => {
    expect(where('name = "x"')).toBe('name = "x"');
    expect(where('name="x"')).toBe('name = "x"');
    expect(where('cost!=1')).toBe('cost != 1');
    expect(where('cost < 1')).toBe('cost < 1');
    expect(where('cost<=1')).toBe('cost <= 1');
    expect(where('cost > -1')).toBe('cost > -1');
    expect(where('cost >= 1.5')).toBe('cost >= 1.5');
    expect(where('name < "m"')).toBe('name < "m"');
  });

  test('= and != accept booleans and null; ordering operators do not', () => {
    expect(where('isAdmin = true')).toBe('isAdmin = true');
    expect(where('isAdmin != FALSE')).toBe('isAdmin != false');
    expect(where('name = null')).toBe('name = null');
    expect(where('name != NULL')).toBe('name != null');
    syntaxError('isAdmin < true');
    syntaxError('name >= null');
    syntaxError('name = ');
    syntaxError('name == "x"');
    syntaxError('name =< "x"');
    syntaxError('name ! = "x"');
    syntaxError('name = other');
  });

  test('numbers', () => {
    const value = (f: string) => (parseFilter(f).where as { value: { value: number; isInt: boolean } }).value;
    expect(value('n = 0')).toEqual({ kind: 'number', value: 0, isInt: true });
    expect(value('n = -12')).toEqual({ kind: 'number', value: -12, isInt: true });
    expect(value('n = 1.25')).toEqual({ kind: 'number', value: 1.25, isInt: false });
    expect(value('n = 1e3')).toEqual({ kind: 'number', value: 1000, isInt: false });
    expect(value('n = 15E-1')).toEqual({ kind: 'number', value: 1.5, isInt: false });
    expect(value('n = -2.5e+2')).toEqual({ kind: 'number', value: -250, isInt: false });
    syntaxError('n = 01');
    syntaxError('n = 1.');
    syntaxError('n = .5');
    syntaxError('n = 1e');
    syntaxError('n = 1e01');
    syntaxError('n = - 1');
    syntaxError('n = 1e999');
    syntaxError('n = 0x10');
  });

  test('strings and their escapes', () => {
    const value = (f: string) => (parseFilter(f).where as { value: { value: string } }).value.value;
    expect(value('name = ""')).toBe('');
    expect(value(String.raw`name = "a\"b\\c\fd\ne\rf\tg"`)).toBe('a"b\\c\fd\ne\rf\tg');
    expect(value('name = "école ☃ 😀 \' ok"')).toBe("école ☃ 😀 ' ok");
    syntaxError(String.raw`name = "\u0041"`);
    syntaxError(String.raw`name = "\/"`);
    syntaxError(String.raw`name = "\b"`);
    syntaxError('name = "line\nbreak"');
    syntaxError('name = "tab\there"');
    syntaxError('name = "unterminated');
    syntaxError(String.raw`name = "ends in backslash\"`);
    syntaxError("name = 'single'");
  });

  test('datetime literals (RFC 3339)', () => {
    const ms = (f: string) => (parseFilter(f).where as { value: { value: number } }).value.value;
    expect(ms('createdAt > datetime(2024-05-01T10:00:00Z)')).toBe(Date.parse('2024-05-01T10:00:00Z'));
    expect(ms('createdAt > DATETIME(2024-05-01t10:00:00z)')).toBe(Date.parse('2024-05-01T10:00:00Z'));
    expect(ms('createdAt > datetime( 2024-05-01T10:00:00.5Z )')).toBe(Date.parse('2024-05-01T10:00:00.500Z'));
    expect(ms('createdAt > datetime(2024-05-01T10:00:00.123456789Z)')).toBeCloseTo(Date.parse('2024-05-01T10:00:00.123Z') + 0.456789, 3);
    expect(ms('createdAt > datetime(2024-05-01T12:30:00+02:30)')).toBe(Date.parse('2024-05-01T10:00:00Z'));
    expect(ms('createdAt > datetime(2024-05-01T05:00:00-05:00)')).toBe(Date.parse('2024-05-01T10:00:00Z'));
    expect(ms('createdAt > datetime(2024-02-29T00:00:00Z)')).toBe(Date.parse('2024-02-29T00:00:00Z'));
    expect(ms('createdAt > datetime(2000-02-29T00:00:00Z)')).toBe(Date.parse('2000-02-29T00:00:00Z'));
    expect(ms('createdAt > datetime(0001-01-01T00:00:00Z)')).toBe(Date.parse('0001-01-01T00:00:00Z'));
    expect(ms('createdAt > datetime(2024-12-31T23:59:59Z)')).toBe(Date.parse('2024-12-31T23:59:59Z'));
    for (const bad of [
      '2024-13-01T00:00:00Z',
      '2024-00-01T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2024-04-31T00:00:00Z',
      '2024-01-01T24:00:00Z',
      '2024-01-01T00:60:00Z',
      '2024-01-01T00:00:60Z',
      '2024-01-01T00:00:00',
      '2024-01-01 00:00:00Z',
      '2024-01-01T00:00:00+0200',
      '2024-01-01T00:00:00+24:00',
      '2024-01-01T00:00:00.Z',
      '24-01-01T00:00:00Z',
      '"2024-01-01T00:00:00Z"',
      '',
    ]) {
      syntaxError(`createdAt > datetime(${bad})`);
    }
    syntaxError('createdAt > datetime (2024-05-01T10:00:00Z)');
    syntaxError('createdAt > datetime(2024-05-01T10:00:00Z');
    syntaxError('createdAt > datetime(2024-05-01T10:00:00Z x)');
  });

  test('contains, icontains and their negations', () => {
    expect(where('name contains "a"')).toBe('name contains "a"');
    expect(where('name not contains "a"')).toBe('name not contains "a"');
    expect(where('name icontains "a"')).toBe('name icontains "a"');
    expect(where('name NOT ICONTAINS "a"')).toBe('name not icontains "a"');
    expect(where('n contains 5')).toBe('n contains 5');
    expect(where('name not \n contains "a"')).toBe('name not contains "a"');
    expect(where('anyOf(a)contains "x"')).toBe('anyOf(a) contains "x"');
    syntaxError('name icontains 5');
    syntaxError('name contains"a"');
    syntaxError('name contains true');
    syntaxError('name contains');
    syntaxError('anyOf(a)not contains "x" and x notcontains "y"');
  });

  test('in and not in, with string, number and datetime arrays', () => {
    expect(where('id in ["a", "b"]')).toBe('id in ["a","b"]');
    expect(where('id in [ "a" ]')).toBe('id in ["a"]');
    expect(where('cost not in [1,2.5 , -3]')).toBe('cost not in [1,2.5,-3]');
    expect(where('createdAt in [datetime(2024-01-01T00:00:00Z)]')).toBe('createdAt in [dt:2024-01-01T00:00:00.000Z]');
    expect(where('id not\tin ["a"]')).toBe('id not in ["a"]');
    expect(where('id IN ["a"]')).toBe('id in ["a"]');
    syntaxError('id not  in ["a"]');
    syntaxError('id not\n\nin ["a"]');
    syntaxError('id in []');
    syntaxError('id in ["a", 1]');
    syntaxError('id in [1, "a"]');
    syntaxError('id in ["a",]');
    syntaxError('id in ["a"');
    syntaxError('id in["a"]');
    syntaxError('id in "a"');
    syntaxError('id in [true]');
    syntaxError('id in [null]');
    syntaxError('anyOf(a)in ["x"]');
  });

  test('between and not between (numbers or datetimes, same kind on both ends)', () => {
    expect(where('cost between 0 and 100')).toBe('cost between 0 100');
    expect(where('cost NOT BETWEEN -1.5 AND 2')).toBe('cost not between -1.5 2');
    expect(where('createdAt between datetime(2024-01-01T00:00:00Z) and datetime(2025-01-01T00:00:00Z)')).toBe(
      'createdAt between dt:2024-01-01T00:00:00.000Z dt:2025-01-01T00:00:00.000Z',
    );
    expect(where('cost between 0 and 100 and name = "x"')).toBe('(cost between 0 100 and name = "x")');
    syntaxError('cost between 0 and datetime(2024-01-01T00:00:00Z)');
    syntaxError('cost between "a" and "b"');
    syntaxError('cost between 1 or 2');
    syntaxError('cost between 1 and');
    syntaxError('cost between 1and 2');
  });

  test('set functions: anyOf, allOf, count, isEmpty, from-where', () => {
    expect(where('anyOf(roleAttributes) = "sales"')).toBe('anyOf(roleAttributes) = "sales"');
    expect(where('ALLOF( roleAttributes ) != "x"')).toBe('allOf(roleAttributes) != "x"');
    expect(where('count(roleAttributes) > 1')).toBe('count(roleAttributes) > 1');
    expect(where('isEmpty(roleAttributes)')).toBe('isEmpty(roleAttributes)');
    expect(where('not ISEMPTY(roleAttributes)')).toBe('not isEmpty(roleAttributes)');
    expect(where('count(roleAttributes) in [1, 2]')).toBe('count(roleAttributes) in [1,2]');
    expect(where('anyOf(identities) not in ["a"]')).toBe('anyOf(identities) not in ["a"]');
    expect(where('not isEmpty(from servicePolicies where anyOf(identities) = "x")')).toBe(
      'not isEmpty(from servicePolicies where anyOf(identities) = "x")',
    );
    expect(where('count(from servicePolicies where type = 1 sort by name limit 3) > 0')).toBe('count(from servicePolicies where type = 1) > 0');
    syntaxError('isEmpty (roleAttributes)');
    syntaxError('anyOf (roleAttributes) = "x"');
    syntaxError('anyOf(roleAttributes)');
    syntaxError('count(roleAttributes)');
    syntaxError('anyOf(from x where a = 1) = "x"');
    syntaxError('isEmpty()');
    syntaxError('isEmpty(from x)');
    syntaxError('isEmpty(from x where)');
    syntaxError('anyOf("x") = "x"');
  });
});

describe('boolean structure', () => {
  test('and binds tighter than or', () => {
    expect(where('a = 1 or b = 2 and c = 3')).toBe('(a = 1 or (b = 2 and c = 3))');
    expect(where('a = 1 and b = 2 or c = 3 and d = 4')).toBe('((a = 1 and b = 2) or (c = 3 and d = 4))');
    expect(where('a = 1 AND b = 2 And c = 3')).toBe('(a = 1 and b = 2 and c = 3)');
  });

  test('not has the lowest precedence', () => {
    expect(where('not a = 1 and b = 2')).toBe('not (a = 1 and b = 2)');
    expect(where('not a = 1 or b = 2')).toBe('not (a = 1 or b = 2)');
    expect(where('a = 1 and not b = 2 or c = 3')).toBe('(a = 1 and not (b = 2 or c = 3))');
    expect(where('(not a = 1) and b = 2')).toBe('(not a = 1 and b = 2)');
    expect(where('not not a = 1')).toBe('not not a = 1');
  });

  test('parentheses', () => {
    expect(where('(a = 1 or b = 2) and c = 3')).toBe('((a = 1 or b = 2) and c = 3)');
    expect(where('( ( a = 1 ) )')).toBe('a = 1');
    expect(where('(a = 1)and (b = 2)'.replace(')and', ') and'))).toBe('(a = 1 and b = 2)');
    syntaxError('(a = 1');
    syntaxError('a = 1)');
    syntaxError('()');
  });

  test('bare booleans and boolean fields', () => {
    expect(where('true')).toBe('true');
    expect(where('FALSE or True')).toBe('(false or true)');
    expect(where('isAdmin')).toBe('?isAdmin');
    expect(where('isAdmin and not disabled')).toBe('(?isAdmin and not ?disabled)');
    expect(where("'isAdmin'")).toBe('?isAdmin');
  });

  test('and / or / not need whitespace on both sides', () => {
    syntaxError('a=1and b=2');
    syntaxError('a="x"and b=2');
    syntaxError('(a=1)and b=2');
    syntaxError('a=1 and(b=2)');
    syntaxError('a=1 or(b=2)');
    syntaxError('not(a=1)');
    syntaxError('a=1 and');
    syntaxError('and a=1');
    syntaxError('a=1 or or b=2');
    expect(where('a=1\tand\nb=2\r\nor\rc=3')).toBe('((a = 1 and b = 2) or c = 3)');
  });
});

describe('identifiers', () => {
  test('plain, dotted and single-quoted', () => {
    expect(where('tags.owner = "a"')).toBe('tags.owner = "a"');
    expect(where('tags.my-key_x.sub-key = "a"')).toBe('tags.my-key_x.sub-key = "a"');
    expect(where("'tags.owner' = \"a\"")).toBe('tags.owner = "a"');
    expect(where("'limit' = 1")).toBe('limit = 1');
    expect(where('snake_case = 1')).toBe('snake_case = 1');
  });

  test('names keep their case, keywords do not care', () => {
    expect(where('Name = "x" AnD NAME = "y"')).toBe('(Name = "x" and NAME = "y")');
    expect(where('aNyOf(x) = "a"')).toBe('anyOf(x) = "a"');
  });

  test('identifiers contain no digits and start with a letter', () => {
    syntaxError('tags.env2 = "x"');
    syntaxError('env2 = "x"');
    syntaxError('_name = "x"');
    syntaxError('tags._x = "x"');
    syntaxError('my-key = "x"');
    syntaxError('tags. = "x"');
    syntaxError("'tags.env2' = \"x\"");
    syntaxError("'unterminated = 1");
    syntaxError("'' = 1");
  });

  test('keywords cannot be bare identifiers', () => {
    for (const kw of ['desc', 'asc', 'by', 'where', 'from', 'none', 'sort', 'skip', 'in', 'between', 'contains', 'null']) {
      syntaxError(`${kw} = 1`);
    }
    expect(() => parseFilter('limit = 1')).toThrow(FilterSyntaxError);
  });

  test('function names are identifiers when no parenthesis follows', () => {
    expect(where('count = 1')).toBe('count = 1');
    expect(where('anyOf')).toBe('?anyOf');
  });

  test('characters that start no token', () => {
    for (const f of ['name = "a" && b = 1', 'name = "a" || b = 1', '#x', 'name = @x', 'name ~ "x"', 'a = 1;', 'a = 1 -- x', '\u00a0a = 1', 'é = 1', 'a = 1 /* */', 'a\f= 1']) {
      syntaxError(f);
    }
  });
});

describe('syntax error messages', () => {
  test('the reference format, with 1-based line and 0-based column', () => {
    const e = syntaxError('name = "x" and desc = 1');
    expect(e.message).toBe('Unexpected symbol: "desc" at line: 1 column: 15. line: 1, column: 15, symbol: desc');
    expect([e.line, e.column, e.symbol]).toEqual([1, 15, 'desc']);
  });

  test('end of input', () => {
    const e = syntaxError('name =');
    expect(e.message).toBe('Unexpected symbol: "<EOF>" at line: 1 column: 6. line: 1, column: 6, symbol: <EOF>');
  });

  test('positions across lines', () => {
    const e = syntaxError('name = "x"\n  and\n   nope nope');
    expect([e.line, e.column, e.symbol]).toEqual([3, 8, 'nope']);
    const d = syntaxError('createdAt > datetime(\n2024-01-01T00:00:00Z\n) and\n x =');
    expect([d.line, d.column, d.symbol]).toEqual([4, 4, '<EOF>']);
  });

  test('lexical errors point at the offending character', () => {
    const e = syntaxError('name = "a" & b');
    expect([e.line, e.column, e.symbol]).toEqual([1, 11, '&']);
    expect(syntaxError(String.raw`name = "a\qb"`).symbol).toBe('\\q');
    expect(syntaxError('x = datetime(2024-13-01T00:00:00Z)').symbol).toBe('datetime(2024-13-01T00:00:00Z)');
  });

  test('long symbols are shortened', () => {
    const e = syntaxError(`name = "${'a'.repeat(200)}`);
    expect(e.symbol.length).toBeLessThan(50);
  });
});

describe('limits', () => {
  test('input length is capped', () => {
    const ok = `name = "${'a'.repeat(MAX_FILTER_LENGTH - 9)}"`;
    expect(ok.length).toBe(MAX_FILTER_LENGTH);
    expect(() => parseFilter(ok)).not.toThrow();
    expect(() => parseFilter(`${ok} `)).toThrow(FilterError);
    expect(() => parseFilter(`${ok} `)).toThrow(/too long/);
  });

  test('nesting depth is capped for parentheses, not and sub-queries', () => {
    const parens = (n: number) => `${'('.repeat(n)}a = 1${')'.repeat(n)}`;
    expect(() => parseFilter(parens(MAX_NESTING_DEPTH))).not.toThrow();
    expect(() => parseFilter(parens(MAX_NESTING_DEPTH + 1))).toThrow(/nested too deeply/);
    const nots = (n: number) => `${'not '.repeat(n)}a = 1`;
    expect(() => parseFilter(nots(MAX_NESTING_DEPTH))).not.toThrow();
    expect(() => parseFilter(nots(MAX_NESTING_DEPTH + 1))).toThrow(/nested too deeply/);
    let from = 'a = 1';
    for (let i = 0; i <= MAX_NESTING_DEPTH; i++) from = `isEmpty(from s where ${from})`;
    expect(() => parseFilter(from)).toThrow(/nested too deeply/);
    // The deepest input within the length cap fails cleanly instead of overflowing the stack.
    expect(() => parseFilter('('.repeat(MAX_FILTER_LENGTH))).toThrow(FilterError);
    expect(() => parseFilter('not '.repeat(MAX_FILTER_LENGTH / 4))).toThrow(FilterError);
  });

  test('long flat chains are not nesting', () => {
    const chain = Array.from({ length: 400 }, () => 'a = 1').join(' or ');
    expect(() => parseFilter(chain)).not.toThrow();
  });
});

describe('the sort parameter', () => {
  test('fields with directions', () => {
    expect(parseSortList('name desc, createdAt').map((s) => [s.ident.name, s.descending])).toEqual([
      ['name', true],
      ['createdAt', false],
    ]);
    expect(parseSortList(' tags.owner ASC ')).toMatchObject([{ ident: { name: 'tags.owner' }, descending: false }]);
    expect(parseSortList('')).toEqual([]);
  });

  test('errors', () => {
    expect(() => parseSortList('sort by name')).toThrow(FilterSyntaxError);
    expect(() => parseSortList('name,')).toThrow(FilterSyntaxError);
    expect(() => parseSortList('name up')).toThrow(FilterSyntaxError);
    expect(() => parseSortList('name; drop table x')).toThrow(FilterSyntaxError);
    expect(() => parseSortList('x'.repeat(MAX_FILTER_LENGTH + 1))).toThrow(FilterError);
  });
});
