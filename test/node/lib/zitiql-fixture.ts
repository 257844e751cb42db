import { createClient, type Client } from '@libsql/client';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/libsql';
import { integer, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { commonFields, jsonArraySet, type FieldMap } from '../../../src/lib/zitiql/index.js';

/** A small table with every storage convention the filter compiler has to handle. */
export const items = sqliteTable('items', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  descr: text('descr'),
  cost: real('cost'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
  isSystem: integer('is_system', { mode: 'boolean' }).notNull(),
  isAdmin: integer('is_admin'),
  expiresAt: integer('expires_at'),
  roleAttributes: text('role_attributes').notNull(),
  tags: text('tags').notNull(),
});

export const fields: FieldMap = {
  ...commonFields(items),
  name: { type: 'string', sql: items.name },
  descr: { type: 'string', sql: items.descr },
  cost: { type: 'number', sql: items.cost },
  isAdmin: { type: 'bool', sql: items.isAdmin },
  expiresAt: { type: 'datetime', sql: items.expiresAt },
  upperName: { type: 'string', sql: sql`upper(${items.name})` },
  roleAttributes: jsonArraySet(items.roleAttributes),
  /** A set computed by a sub-query over a link table. */
  targets: { type: 'string', set: true, values: sql`(SELECT target AS value FROM links WHERE links.item_id = ${items.id})` },
  scores: jsonArraySet(items.roleAttributes, 'number'),
};

const ms = (s: string) => Date.parse(s);

export interface Row {
  id: string;
  name: string;
  descr: string | null;
  cost: number | null;
  createdAt: number;
  updatedAt: number;
  isSystem: boolean;
  isAdmin: number | null;
  expiresAt: number | null;
  roleAttributes: string;
  tags: string;
  targets: string[];
}

export const ROWS: Row[] = [
  { id: 'a1', name: 'alpha', descr: 'Hello World', cost: 5, createdAt: ms('2024-01-01T00:00:00Z'), updatedAt: ms('2024-06-01T00:00:00.123Z'), isSystem: false, isAdmin: 1, expiresAt: ms('2030-01-01T00:00:00Z'), roleAttributes: '["eu","sales"]', tags: '{"owner":"alice","n":3,"flag":true}', targets: ['x', 'y'] },
  { id: 'b2', name: 'beta', descr: null, cost: 10, createdAt: ms('2024-02-01T00:00:00Z'), updatedAt: ms('2024-06-02T00:00:00Z'), isSystem: true, isAdmin: 0, expiresAt: null, roleAttributes: '["sales"]', tags: '{"owner":"bob","n":"3","flag":false}', targets: ['x'] },
  { id: 'c3', name: 'Gamma', descr: 'hello there', cost: null, createdAt: ms('2024-03-01T00:00:00Z'), updatedAt: ms('2024-06-03T00:00:00Z'), isSystem: false, isAdmin: null, expiresAt: null, roleAttributes: '[]', tags: '{}', targets: [] },
  { id: 'd4', name: 'delta', descr: 'école', cost: -2.5, createdAt: ms('2023-12-31T23:59:59.999Z'), updatedAt: ms('2024-06-04T00:00:00Z'), isSystem: false, isAdmin: 0, expiresAt: ms('2020-01-01T00:00:00Z'), roleAttributes: '["all","eu","us"]', tags: '{"owner":null,"nested":{"k":"v"},"my-key":"x","n":2.5}', targets: ['y', 'z'] },
  { id: 'E5', name: 'epsilon', descr: '', cost: 0, createdAt: ms('2024-01-01T00:00:00Z'), updatedAt: ms('2024-06-05T00:00:00Z'), isSystem: false, isAdmin: 1, expiresAt: null, roleAttributes: '[1, 2, 3]', tags: 'not json', targets: ['x', 'x'] },
  { id: 'f6', name: 'zeta', descr: 'ZETA', cost: 100, createdAt: ms('2024-05-01T10:00:00Z'), updatedAt: ms('2024-06-06T00:00:00Z'), isSystem: false, isAdmin: 1, expiresAt: null, roleAttributes: '[', tags: '{"owner":"ALICE","n":0}', targets: [] },
];

export type TestDb = ReturnType<typeof drizzle>;

export async function openFixture(): Promise<{ client: Client; db: TestDb }> {
  const client = createClient({ url: ':memory:' });
  await client.executeMultiple(`
    CREATE TABLE items (
      id TEXT PRIMARY KEY, name TEXT NOT NULL, descr TEXT, cost REAL, created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL, is_system INTEGER NOT NULL, is_admin INTEGER, expires_at INTEGER,
      role_attributes TEXT NOT NULL, tags TEXT NOT NULL);
    CREATE TABLE links (item_id TEXT NOT NULL, target TEXT NOT NULL);
  `);
  for (const r of ROWS) {
    await client.execute({
      sql: 'INSERT INTO items VALUES (?,?,?,?,?,?,?,?,?,?,?)',
      args: [r.id, r.name, r.descr, r.cost, r.createdAt, r.updatedAt, r.isSystem ? 1 : 0, r.isAdmin, r.expiresAt, r.roleAttributes, r.tags],
    });
    for (const t of r.targets) await client.execute({ sql: 'INSERT INTO links VALUES (?, ?)', args: [r.id, t] });
  }
  return { client, db: drizzle(client) };
}
