import { describe, expect, it } from 'vitest';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { encodeValues, validateMap, validateRoleAttributes, writeValues, type Props } from '../../src/crud/props.js';
import { uniqueViolation } from '../../src/crud/repo.js';
import { ApiError } from '../../src/errors.js';

function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('did not throw');
}

/** A table of every property kind, for the property engine alone. */
const table = sqliteTable('kinds', {
  name: text('name').notNull(),
  tags: text('tags').notNull(),
  roleAttributes: text('role_attributes').notNull(),
  externalId: text('external_id'),
  isAdmin: integer('is_admin', { mode: 'boolean' }).notNull(),
  cost: integer('cost').notNull(),
  deep: text('deep').notNull(),
  schema: text('schema').notNull(),
});

const props = {
  name: { column: 'name', kind: 'name' },
  tags: { column: 'tags', kind: 'map' },
  roleAttributes: { column: 'roleAttributes', kind: 'attributes' },
  externalId: { column: 'externalId', kind: 'nullableString' },
  isAdmin: { column: 'isAdmin', kind: 'bool' },
  cost: { column: 'cost', kind: 'int', convert: (n: number) => Math.max(n, 1) },
  'a.b.c': { column: 'deep', kind: 'string', zero: 'z' },
  schema: { column: 'schema', kind: 'object' },
} satisfies Props<typeof table>;

/** The stored form, as the engine writes it. */
const stored = (body: unknown, mode: 'create' | 'update' | 'patch') => encodeValues(props, writeValues(props, body, mode));

describe('writeValues', () => {
  it('create and PUT write every property, absent ones as zero values (converted)', () => {
    expect(stored({ name: 'n' }, 'update')).toEqual({ name: 'n', tags: '{}', roleAttributes: '[]', externalId: null, isAdmin: false, cost: 1, deep: 'z', schema: '{}' });
    expect(stored({ name: 'n', a: { b: { c: 'x' } }, roleAttributes: ['b', 'a', 'b'], cost: 5 }, 'create')).toMatchObject({ deep: 'x', roleAttributes: '["a","b"]', cost: 5 });
  });

  it('PATCH writes present, non-null properties only; maps only with keys; empty lists clear', () => {
    expect(stored({ name: null, tags: {}, roleAttributes: [], externalId: '  ', a: { b: null } }, 'patch')).toEqual({ roleAttributes: '[]', externalId: null });
    expect(stored({ tags: { k: 1 }, a: { b: { c: 'y' } }, unknown: 1 }, 'patch')).toEqual({ tags: '{"k":1}', deep: 'y' });
    expect(stored({}, 'patch')).toEqual({});
  });

  it('hands hooks decoded values: maps and objects as objects, role attributes as a sorted list', () => {
    const values = writeValues(props, { name: 'n', tags: { k: 'v' }, roleAttributes: ['b', 'a'], schema: { type: 'object' } }, 'create');
    expect(values).toMatchObject({ tags: { k: 'v' }, roleAttributes: ['a', 'b'], schema: { type: 'object' } });
  });

  it('keeps nested objects whole, leaves them alone on PATCH with {} or null, and refuses non-objects (§2.7)', () => {
    const schema = { type: 'object', properties: { port: { type: 'integer', minimum: 1 } }, required: ['port'] };
    expect(stored({ name: 'n', schema }, 'create').schema).toBe(JSON.stringify(schema));
    expect(stored({ schema: {} }, 'patch')).toEqual({});
    expect(stored({ schema: null }, 'patch')).toEqual({});
    expect(stored({ schema: { a: { b: [1, { c: 2 }] } } }, 'patch')).toEqual({ schema: '{"a":{"b":[1,{"c":2}]}}' });
    expect(thrown(() => writeValues(props, { schema: [1] }, 'patch')).causeDetail).toMatchObject({ field: 'schema', reason: 'schema must be an object' });
  });

  it('refuses an empty name on every mode', () => {
    for (const mode of ['create', 'update', 'patch'] as const) {
      expect(thrown(() => writeValues(props, { name: '' }, mode)).causeDetail).toEqual({ field: 'name', reason: 'name is required', value: '' });
    }
    expect(thrown(() => writeValues(props, {}, 'create')).causeDetail?.reason).toBe('name is required');
  });
});

describe('validation rules', () => {
  it('accepts flat tag maps and refuses nested objects and lists', () => {
    expect(validateMap({ a: null, b: 'x', c: true, d: 1.5 })).toEqual({ a: null, b: 'x', c: true, d: 1.5 });
    expect(validateMap(null)).toEqual({});
    expect(thrown(() => validateMap({ a: { b: 1 } })).causeDetail).toMatchObject({ field: 'tags', reason: expect.stringContaining('nested maps') });
    expect(thrown(() => validateMap({ a: [1] }, 'appData')).causeDetail).toMatchObject({ field: 'appData', reason: expect.stringContaining('nested lists') });
    expect(thrown(() => validateMap([1])).causeDetail?.field).toBe('tags');
  });

  it('refuses role attributes starting with # or @ and sorts them bytewise without duplicates', () => {
    expect(validateRoleAttributes(['b', 'B', 'a', 'b'])).toEqual(['B', 'a', 'b']);
    expect(thrown(() => validateRoleAttributes(['#x'])).causeDetail).toEqual({ field: 'roleAttributes', reason: 'role attributes may not be prefixed with #', value: '#x' });
    expect(thrown(() => validateRoleAttributes(['ok', '@y'])).causeDetail?.reason).toBe('role attributes may not be prefixed with @');
  });

  it('recognises unique violations as libSQL and D1 word them', () => {
    expect(uniqueViolation(new Error('SQLITE_CONSTRAINT_UNIQUE: UNIQUE constraint failed: identities.name'))).toEqual(['identities.name']);
    expect(uniqueViolation(new Error('D1_ERROR: UNIQUE constraint failed: authenticators.username: SQLITE_CONSTRAINT'))).toEqual(['authenticators.username']);
    expect(uniqueViolation(Object.assign(new Error('Failed query'), { cause: new Error('UNIQUE constraint failed: a.x, a.y') }))).toEqual(['a.x', 'a.y']);
    expect(uniqueViolation(new Error('FOREIGN KEY constraint failed'))).toBeUndefined();
  });
});
