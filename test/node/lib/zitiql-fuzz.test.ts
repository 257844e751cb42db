/**
 * Property tests: thousands of generated, mutated and hostile filters. Every input must either list rows or
 * fail with the filter errors (never another exception, never an SQLite error), and whenever it lists rows
 * they must be exactly the rows an independent in-memory evaluation of the same syntax tree selects.
 */
import type { Client } from '@libsql/client';
import { beforeAll, describe, expect, test } from 'vitest';
import { ApiError } from '../../../src/errors.js';
import { compileRoleFilter, resolveListQuery, type ListQueryParams } from '../../../src/crud/list-query.js';
import { MAX_NESTING_DEPTH, MAX_SORT_FIELDS, parseFilter, type BoolExpr, type Lhs, type Literal, type SetExpr, type SortField } from '../../../src/lib/zitiql/index.js';
import { fields, items, openFixture, ROWS, type Row, type TestDb } from './zitiql-fixture.js';

let db: TestDb;
let client: Client;
let snapshot: string;

async function tableSnapshot(): Promise<string> {
  const rows = await client.execute('SELECT * FROM items ORDER BY id');
  const links = await client.execute('SELECT * FROM links ORDER BY item_id, target');
  const schema = await client.execute('SELECT type, name, sql FROM sqlite_master ORDER BY name');
  return JSON.stringify([rows.rows, links.rows, schema.rows]);
}

beforeAll(async () => {
  ({ db, client } = await openFixture());
  snapshot = await tableSnapshot();
});

// ---------------------------------------------------------------------------------------------------------
// Seeded randomness

function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Gen {
  constructor(readonly rnd: () => number) {}
  int(n: number) {
    return Math.floor(this.rnd() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
  chance(p: number) {
    return this.rnd() < p;
  }
}

// ---------------------------------------------------------------------------------------------------------
// The reference evaluation, written from the semantics in the behaviour reference, independent of the SQL

type FieldKind = 'string' | 'number' | 'datetime' | 'bool';
const SCALARS: Record<string, FieldKind> = {
  id: 'string',
  name: 'string',
  descr: 'string',
  upperName: 'string',
  cost: 'number',
  createdAt: 'datetime',
  updatedAt: 'datetime',
  expiresAt: 'datetime',
  isAdmin: 'bool',
  isSystem: 'bool',
};
const SETS: Record<string, FieldKind> = { roleAttributes: 'string', targets: 'string', scores: 'number' };
const MAP_KEYS = ['owner', 'n', 'flag', 'nested', 'nested.k', 'my-key', 'absent'];

/** SQLite's upper(): ASCII letters only. */
const asciiUpper = (s: string) => s.replace(/[a-z]/g, (c) => c.toUpperCase());

function readJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function scalarValue(row: Row, name: string): string | number | boolean | null {
  switch (name) {
    case 'upperName':
      return asciiUpper(row.name);
    case 'isAdmin':
      return row.isAdmin === null ? null : row.isAdmin === 1;
    default:
      return row[name as keyof Row] as string | number | boolean | null;
  }
}

function elements(row: Row, name: string): unknown[] {
  if (name === 'targets') return row.targets;
  const v = readJson(row.roleAttributes);
  return Array.isArray(v) ? v : [];
}

/** A map entry: undefined when absent or when the document is not valid JSON. */
function mapValue(row: Row, path: string): unknown {
  let v: unknown = readJson(row.tags);
  for (const key of path.split('.')) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

type Op = Exclude<Extract<BoolExpr, { lhs: Lhs }>, never>;

function litValue(l: Literal): unknown {
  return l.kind === 'null' ? null : l.value;
}

/** The comparison itself, for a value already known to have the literal's type. */
function cond(v: unknown, e: Op): boolean {
  switch (e.type) {
    case 'compare': {
      const lit = litValue(e.value) as string | number | boolean;
      const x = v as string | number | boolean;
      switch (e.op) {
        case '=':
        case '!=':
          return x === lit;
        case '<':
          return x < lit;
        case '<=':
          return x <= lit;
        case '>':
          return x > lit;
        case '>=':
          return x >= lit;
      }
      break;
    }
    case 'contains':
      return e.caseInsensitive ? asciiUpper(v as string).includes(asciiUpper(e.value.value as string)) : (v as string).includes(e.value.value as string);
    case 'in':
      return e.values.values.some((l) => l.value === v);
    case 'between':
      return (v as number) >= e.low.value && (v as number) < e.high.value;
  }
}

const negative = (e: Op) => (e.type === 'compare' ? e.op === '!=' : e.negated);
const literalKind = (e: Op) => (e.type === 'compare' ? e.value.kind : e.type === 'in' ? e.values.kind : e.type === 'between' ? e.low.kind : e.value.kind);
const jsType = (kind: string) => (kind === 'datetime' ? 'number' : kind === 'bool' ? 'boolean' : kind);

function evalOp(row: Row, e: Op): boolean {
  const lhs = e.lhs;
  if (lhs.kind === 'field') {
    const name = lhs.ident.name;
    if (name in SCALARS) {
      const v = scalarValue(row, name);
      if (literalKind(e) === 'null') return (v === null) === (negative(e) === false);
      const positive = v !== null && cond(v, e);
      return negative(e) ? !positive : positive;
    }
    const v = mapValue(row, name.slice('tags.'.length));
    const kind = literalKind(e);
    if (kind === 'null') return (v === undefined || v === null) !== negative(e);
    const positive = typeof v === jsType(kind) && cond(v, e);
    return negative(e) ? !positive : positive;
  }
  if (lhs.kind === 'count') return evalOpOn(elements(row, (lhs.set as { ident: { name: string } }).ident.name).length, e, 'number');
  const els = elements(row, lhs.ident.name);
  const type = jsType(SETS[lhs.ident.name]);
  const test = (x: unknown) => evalOpOn(x, e, type);
  return lhs.kind === 'anyOf' ? els.some(test) : els.every(test);
}

function evalOpOn(v: unknown, e: Op, type: string): boolean {
  const positive = typeof v === type && cond(v, e);
  return negative(e) ? !positive : positive;
}

function evaluate(row: Row, e: BoolExpr): boolean {
  switch (e.type) {
    case 'and':
      return e.items.every((i) => evaluate(row, i));
    case 'or':
      return e.items.some((i) => evaluate(row, i));
    case 'not':
      return !evaluate(row, e.expr);
    case 'bool':
      return e.value;
    case 'isEmpty':
      return elements(row, (e.set as Extract<SetExpr, { kind: 'set' }>).ident.name).length === 0;
    case 'ident':
      return e.ident.name in SCALARS ? scalarValue(row, e.ident.name) === true : mapValue(row, e.ident.name.slice(5)) === true;
    default:
      return evalOp(row, e);
  }
}

/** SQLite ordering: NULL < numbers < text (bytewise); booleans are 0/1. */
function sortValue(row: Row, name: string): null | number | string {
  let v: unknown = name in SCALARS ? scalarValue(row, name) : mapValue(row, name.slice(5));
  if (typeof v === 'boolean') v = v ? 1 : 0;
  if (v === undefined || v === null) return null;
  if (typeof v === 'object') return JSON.stringify(v);
  return v as number | string;
}

function compareValues(a: null | number | string, b: null | number | string): number {
  const rank = (x: unknown) => (x === null ? 0 : typeof x === 'number' ? 1 : 2);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (a === null || b === null || a === b) return 0;
  return a < b ? -1 : 1;
}

function expectedIds(filter: string): string[] {
  const q = parseFilter(filter);
  const rows = ROWS.filter((r) => !q.where || evaluate(r, q.where));
  const sort: SortField[] = q.sort.slice(0, MAX_SORT_FIELDS);
  return rows
    .sort((a, b) => {
      for (const s of sort) {
        const c = compareValues(sortValue(a, s.ident.name), sortValue(b, s.ident.name));
        if (c !== 0) return s.descending ? -c : c;
      }
      return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    })
    .map((r) => r.id);
}

// ---------------------------------------------------------------------------------------------------------
// Generators

const STRINGS = ['alpha', 'beta', 'Gamma', 'delta', 'epsilon', 'zeta', 'Hello World', 'hello', 'ello', 'LL', '', 'eu', 'sales', 'all', 'us', 'x', 'y', 'z', 'alice', 'ALICE', 'bob', '3', 'v', 'école', 'É', 'ZETA', 'a1', 'E5', 'b'];
const NUMBERS = ['-2.5', '0', '1', '2', '2.5', '3', '5', '10', '100', '1e2', '-1', '0.5', '1e21', '-0', '4.99', '5.0'];
const DATETIMES = [
  '2023-12-31T23:59:59.999Z',
  '2024-01-01T00:00:00Z',
  '2024-01-01t01:00:00+01:00',
  '2024-02-01T00:00:00Z',
  '2024-03-01T00:00:00z',
  '2024-05-01T12:00:00+02:00',
  '2030-01-01T00:00:00Z',
  '2024-06-01T00:00:00.1229Z',
  '2024-06-01T00:00:00.123Z',
  '2020-01-01T00:00:00-00:00',
];

function quote(s: string): string {
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n').replace(/\t/g, '\\t')}"`;
}

class FilterGen extends Gen {
  ws() {
    return this.chance(0.85) ? ' ' : this.pick(['  ', '\t', '\n', '\r\n', ' \t ']);
  }
  optWs() {
    return this.chance(0.6) ? '' : this.ws();
  }
  kw(word: string) {
    return this.chance(0.8) ? word : this.chance(0.5) ? word.toUpperCase() : word[0].toUpperCase() + word.slice(1);
  }
  str() {
    return quote(this.chance(0.8) ? this.pick(STRINGS) : this.pick(['a"b', 'back\\slash', 'new\nline', "it's", '😀', '%', '_', "'; DROP TABLE items; --"]));
  }
  num() {
    return this.pick(NUMBERS);
  }
  dt() {
    return `${this.kw('datetime')}(${this.chance(0.9) ? '' : ' '}${this.pick(DATETIMES)})`;
  }
  literal(kind: string) {
    switch (kind) {
      case 'string':
        return this.str();
      case 'number':
        return this.num();
      case 'datetime':
        return this.dt();
      default:
        return this.kw(this.pick(['true', 'false']));
    }
  }
  /** Mostly the field's own type; sometimes another, to exercise type errors. */
  kindFor(kind: string) {
    return this.chance(0.85) ? kind : this.pick(['string', 'number', 'datetime', 'bool']);
  }
  scalar(): [string, string] {
    if (this.chance(0.04)) return [this.pick(['nope', 'roleAttributes', 'tags', 'toString', 'Name']), 'string'];
    if (this.chance(0.2)) return [`tags.${this.pick(MAP_KEYS)}`, this.pick(['string', 'number', 'bool', 'null'])];
    const name = this.pick(Object.keys(SCALARS));
    return [name, SCALARS[name]];
  }
  operation(lhs: string, kind: string): string {
    const k = this.kindFor(kind);
    const r = this.int(10);
    if (r < 4 || k === 'bool' || k === 'null') {
      const ops = k === 'bool' || k === 'null' ? ['=', '!='] : ['=', '!=', '<', '<=', '>', '>='];
      const value = k === 'null' || this.chance(0.07) ? this.kw('null') : this.literal(k);
      return `${lhs}${this.optWs()}${this.pick(ops)}${this.optWs()}${value}`;
    }
    if (r < 6) {
      const word = this.kw(this.pick(['contains', 'icontains']));
      const neg = this.chance(0.3) ? `${this.kw('not')}${this.ws()}` : '';
      return `${lhs}${this.ws()}${neg}${word}${this.ws()}${this.chance(0.9) ? this.str() : this.num()}`;
    }
    if (r < 8 && k !== 'bool') {
      const n = 1 + this.int(4);
      const values = Array.from({ length: n }, () => this.literal(k === 'null' ? 'string' : k)).join(`${this.optWs()},${this.optWs()}`);
      const neg = this.chance(0.3) ? `${this.kw('not')} ` : '';
      return `${lhs}${this.ws()}${neg}${this.kw('in')}${this.ws()}[${this.optWs()}${values}${this.optWs()}]`;
    }
    const bk = k === 'datetime' || (k !== 'number' && this.chance(0.5)) ? 'datetime' : 'number';
    const neg = this.chance(0.3) ? `${this.kw('not')}${this.ws()}` : '';
    const [lo, hi] = [this.literal(bk), this.literal(bk)];
    return `${lhs}${this.ws()}${neg}${this.kw('between')}${this.ws()}${lo}${this.ws()}${this.kw('and')}${this.ws()}${hi}`;
  }
  atom(): string {
    const r = this.int(20);
    if (r < 8) {
      const [name, kind] = this.scalar();
      return this.operation(name.includes('-') && this.chance(0.5) ? `'${name}'` : name, kind);
    }
    const set = this.chance(0.95) ? this.pick(Object.keys(SETS)) : this.pick(['name', 'nope', 'tags']);
    const kind = SETS[set] ?? 'string';
    if (r < 12) return this.operation(`${this.kw(this.pick(['anyOf', 'allOf']))}(${this.optWs()}${set}${this.optWs()})`, kind);
    if (r < 14) return this.operation(`${this.kw('count')}(${set})`, 'number');
    if (r < 16) return `${this.kw('isEmpty')}(${set})`;
    if (r < 18) return this.pick(['isAdmin', 'isSystem', 'tags.flag', 'name', 'cost', 'tags.owner']);
    return this.kw(this.pick(['true', 'false']));
  }
  expr(depth: number): string {
    const r = this.rnd();
    if (depth < 5 && r < 0.3) {
      const n = 2 + this.int(3);
      return Array.from({ length: n }, () => this.expr(depth + 1)).join(`${this.ws()}${this.kw(this.pick(['and', 'or']))}${this.ws()}`);
    }
    if (depth < 5 && r < 0.4) return `${this.kw('not')}${this.ws()}${this.expr(depth + 1)}`;
    if (depth < 5 && r < 0.5) return `(${this.optWs()}${this.expr(depth + 1)}${this.optWs()})`;
    return this.atom();
  }
  sortField(): string {
    const name = this.chance(0.9) ? this.pick([...Object.keys(SCALARS), 'tags.owner', 'tags.n', 'tags.flag']) : this.pick(['roleAttributes', 'nope', 'tags']);
    return this.chance(0.5) ? name : `${name}${this.ws()}${this.kw(this.pick(['asc', 'desc']))}`;
  }
  filter(): string {
    const parts: string[] = [];
    if (this.chance(0.9)) parts.push(this.expr(0));
    if (this.chance(0.3)) {
      const n = 1 + this.int(7);
      parts.push(`${this.kw('sort')}${this.ws()}${this.kw('by')}${this.ws()}${Array.from({ length: n }, () => this.sortField()).join(`${this.optWs()},${this.optWs()}`)}`);
    }
    if (this.chance(0.1)) parts.push(`${this.kw('skip')}${this.ws()}${this.pick(['0', '1', '-1', '3'])}`);
    if (this.chance(0.1)) parts.push(`${this.kw('limit')}${this.ws()}${this.pick(['0', '2', '-1', 'none', '600'])}`);
    return parts.join(this.ws());
  }
}

const NOISE = ['(', ')', '"', '\\', "'", ' ', 'and ', ' or ', 'not ', '=', '!', '!=', '[', ']', ',', '-', '.', 'é', '\n', '\u0000', '\u00a0', '😀', ';', '--', '/*', 'datetime(', ')', '1e999', '0', 'in ', 'sort by ', 'limit ', 'anyOf(', 'isEmpty(', 'x', 'tags.', '\u2028', '\ud800', '%', '*', '#', '@', '$', '?', ':1'];

function mutate(g: Gen, s: string): string {
  let out = s;
  const n = 1 + g.int(3);
  for (let i = 0; i < n; i++) {
    const at = g.int(out.length + 1);
    switch (g.int(6)) {
      case 0:
        out = out.slice(0, at) + out.slice(at + 1 + g.int(5));
        break;
      case 1:
        out = out.slice(0, at) + g.pick(NOISE) + out.slice(at);
        break;
      case 2: {
        const len = g.int(12);
        out = out.slice(0, at) + out.slice(at, at + len) + out.slice(at);
        break;
      }
      case 3:
        out = out.slice(0, at);
        break;
      case 4: {
        const b = g.int(out.length + 1);
        const [x, y] = at < b ? [at, b] : [b, at];
        out = out.slice(y) + out.slice(x, y) + out.slice(0, x);
        break;
      }
      default:
        out = out.slice(0, at) + String.fromCharCode(g.int(0x3000)) + out.slice(at);
    }
  }
  return out;
}

function garbage(g: Gen): string {
  return Array.from({ length: g.int(40) }, () => (g.chance(0.5) ? g.pick(NOISE) : String.fromCharCode(32 + g.int(95)))).join('');
}

// ---------------------------------------------------------------------------------------------------------
// The property

interface Stats {
  rows: number;
  rejected: number;
}

const FILTER_CODES = new Set(['INVALID_FILTER', 'INVALID_SORT_IDENTIFIER']);

let lastRejection = '';

/** Lists with the input; returns the ids, or null when the input was rejected with a filter error. */
async function attempt(query: ListQueryParams): Promise<string[] | null> {
  let q;
  try {
    q = resolveListQuery(query, fields);
  } catch (e) {
    if (e instanceof ApiError && FILTER_CODES.has(e.code)) {
      lastRejection = e.causeDetail?.message ?? '';
      return null;
    }
    throw new Error(`unexpected exception for ${JSON.stringify(query)}: ${String(e)}`);
  }
  try {
    const rows = await db
      .select({ id: items.id })
      .from(items)
      .where(q.where)
      .orderBy(...q.orderBy);
    return rows.map((r) => r.id);
  } catch (e) {
    const cause = (e as { cause?: unknown }).cause;
    throw new Error(`SQL failed for ${JSON.stringify(query)}: ${String(cause ?? e)}`);
  }
}

async function checkFilter(filter: string, stats: Stats) {
  const ids = await attempt({ filter });
  if (ids === null) {
    stats.rejected++;
    return;
  }
  stats.rows++;
  expect(ids, filter).toEqual(expectedIds(filter));
}

describe('fuzz', () => {
  test('generated filters agree with the reference evaluation', async () => {
    const g = new FilterGen(mulberry32(0x5eed));
    const stats: Stats = { rows: 0, rejected: 0 };
    for (let i = 0; i < 3000; i++) await checkFilter(g.filter(), stats);
    // The generator is tuned to produce mostly valid filters, so the comparison is meaningful.
    expect(stats.rows).toBeGreaterThan(1500);
    expect(stats.rejected).toBeGreaterThan(100);
  });

  test('mutated filters list rows or fail with a filter error', async () => {
    const g = new FilterGen(mulberry32(0xbad5eed));
    const stats: Stats = { rows: 0, rejected: 0 };
    for (let i = 0; i < 3000; i++) await checkFilter(mutate(g, g.filter()), stats);
    expect(stats.rejected).toBeGreaterThan(1000);
    expect(stats.rows).toBeGreaterThan(100);
  });

  test('random text', async () => {
    const g = new Gen(mulberry32(42));
    const stats: Stats = { rows: 0, rejected: 0 };
    for (let i = 0; i < 2000; i++) await checkFilter(garbage(g), stats);
    expect(stats.rejected).toBeGreaterThan(1500);
  });

  test('random sort, limit and offset parameters', async () => {
    const g = new FilterGen(mulberry32(7));
    for (let i = 0; i < 1000; i++) {
      const sort = g.chance(0.5) ? Array.from({ length: 1 + g.int(3) }, () => g.sortField()).join(',') : mutate(g, g.sortField());
      const query: ListQueryParams = { sort, filter: g.chance(0.3) ? g.filter() : undefined };
      if (g.chance(0.3)) query.limit = g.pick(['0', '-1', '5', 'x', '1.5', '', '999999', mutate(g, '12')]);
      if (g.chance(0.3)) query.offset = g.pick(['0', '-1', '5', 'x', '1e3', '', '200000', mutate(g, '3')]);
      try {
        resolveListQuery(query, fields);
      } catch (e) {
        expect(e, JSON.stringify(query)).toBeInstanceOf(ApiError);
        expect(['INVALID_FILTER', 'INVALID_SORT_IDENTIFIER', 'COULD_NOT_VALIDATE']).toContain((e as ApiError).code);
        continue;
      }
      expect(await attempt({ ...query, limit: undefined, offset: undefined })).not.toBeUndefined();
    }
  });

  test('the deepest nesting allowed still compiles to SQL that SQLite accepts', async () => {
    const atoms = ['tags.owner = "x"', 'allOf(targets) not contains "q"', 'count(targets) between 1 and 4', 'name != "a"', 'tags.n between 1 and 9', 'isEmpty(roleAttributes)', 'anyOf(scores) in [1, 2]'];
    for (const atom of atoms) {
      // Alternating and/or forces parentheses in the SQL at every level.
      let f = atom;
      for (let i = 0; i < MAX_NESTING_DEPTH; i++) f = `${atom} ${i % 2 ? 'and' : 'or'} (${f})`;
      let nots = atom;
      for (let i = 0; i < MAX_NESTING_DEPTH / 2; i++) nots = `not (${atom} ${i % 2 ? 'and' : 'or'} ${nots})`;
      for (const filter of [f, nots]) {
        const ids = await attempt({ filter });
        // Map entries bind several values each, so the deepest of them hit the parameter cap first.
        if (ids === null) expect(lastRejection, filter).toMatch(/too complex/);
        else expect(ids, filter).toEqual(expectedIds(filter));
      }
    }
  });

  test('long flat filters within the caps', async () => {
    const stats: Stats = { rows: 0, rejected: 0 };
    await checkFilter(Array.from({ length: 128 }, () => 'isEmpty(targets)').join(' or '), stats);
    await checkFilter(Array.from({ length: 64 }, (_, i) => `cost != ${i}`).join(' and '), stats);
    await checkFilter(Array.from({ length: 21 }, () => 'tags.owner != "x"').join(' and '), stats);
    await checkFilter(Array.from({ length: 400 }, () => 'isAdmin').join(' or '), stats);
    await checkFilter(`id in [${Array.from({ length: 450 }, (_, i) => `"${i}"`).join(',')}]`, stats);
    expect(stats).toEqual({ rows: 4, rejected: 1 });
  });
});

// ---------------------------------------------------------------------------------------------------------
// SQL injection

const INJECTIONS = [
  `'; DROP TABLE items; --`,
  `" OR 1=1 --`,
  `' OR '1'='1`,
  `") OR ("1"="1`,
  `1; DELETE FROM items`,
  `x' UNION SELECT name FROM sqlite_master --`,
  `'); INSERT INTO items (id) VALUES ('evil'); --`,
  `\\'; DROP TABLE links; --`,
  `%' OR 1=1 --`,
  `' || (SELECT sql FROM sqlite_master) || '`,
  `$."owner"') OR 1=1 --`,
  `*/ OR 1=1 /*`,
  `\u0000' OR 1=1`,
  `' AND randomblob(1000000000) --`,
];

describe('SQL injection is inert', () => {
  test('as raw filters, sort parameters and roleFilter values', async () => {
    for (const inj of INJECTIONS) {
      for (const filter of [inj, `name = ${inj}`, `name = "${inj}`, `name = "a" ${inj}`, `sort by ${inj}`, `limit ${inj}`, `tags.${inj} = 1`, `id in [${inj}]`]) {
        expect(await attempt({ filter }), filter).toBeNull();
      }
      await attempt({ sort: inj }).then((r) => expect(r).toBeNull());
      const pre = compileRoleFilter([`#${inj}`, `@${inj}`], 'AnyOf', items.roleAttributes, items.id);
      expect(await db.select({ id: items.id }).from(items).where(pre)).toEqual([]);
    }
    expect(await tableSnapshot()).toBe(snapshot);
  });

  test('as string literals they match nothing and change nothing', async () => {
    for (const inj of INJECTIONS) {
      const s = quote(inj);
      for (const filter of [
        `name = ${s}`,
        `name != ${s} and cost = 5`,
        `descr contains ${s}`,
        `descr icontains ${s}`,
        `tags.owner = ${s}`,
        `anyOf(roleAttributes) = ${s}`,
        `id in [${s}, "nope"]`,
        `name < ${s} and name > ${s}`,
      ]) {
        const ids = await attempt({ filter });
        if (ids === null) {
          // Control characters are not allowed in string literals.
          expect(inj).toMatch(/[\x00-\x1f]/);
          continue;
        }
        expect(ids, filter).toEqual(expectedIds(filter));
        expect(ids.length, filter).toBeLessThanOrEqual(1);
      }
    }
    expect(await tableSnapshot()).toBe(snapshot);
    expect((await client.execute('SELECT count(*) AS n FROM items')).rows[0].n).toBe(6);
  });
});
