import type { Client } from '@libsql/client';
import { drizzle as drizzleD1 } from 'drizzle-orm/d1';
import { drizzle as drizzleLibsql } from 'drizzle-orm/libsql';
import type { Logger as QueryLogger } from 'drizzle-orm/logger';
import type { Db } from './client.js';
import * as schema from './schema/index.js';

/** Drizzle over a libSQL client (embedded file on Node, or a remote libSQL/Turso URL anywhere). */
export function openLibsql(client: Client, queryLogger?: QueryLogger): Db {
  return drizzleLibsql(client, { schema, logger: queryLogger ?? false }) as unknown as Db;
}

/** Drizzle over a D1 binding. */
export function openD1(binding: D1Database, queryLogger?: QueryLogger): Db {
  return drizzleD1(binding, { schema, logger: queryLogger ?? false }) as unknown as Db;
}
