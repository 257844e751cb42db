/**
 * src/db/list-page.ts: a page and its total in one statement give the same answer as the page query
 * plus a count, for filters that match many, some or none, on the first page, inside and past the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, asc, count, desc, eq, like, or, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageWithTotal } from '../../src/db/list-page.js';
import { openStore, prepareDataDir, type NodeStore } from '../../src/db/node-store.js';
import { identities } from '../../src/db/schema/index.js';
import { MIGRATIONS_DIR } from '../../src/node.js';

describe('one-statement list page', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ziti-page-'));
  let store: NodeStore;
  const statements: string[] = [];
  const params: number[] = [];

  beforeAll(async () => {
    prepareDataDir(dir);
    store = await openStore({ dataDir: dir, migrationsFolder: MIGRATIONS_DIR, queryLogger: { logQuery: (s, p) => void (statements.push(s), params.push(p.length)) } });
    const now = Date.now();
    const insert = store.native!.native.prepare('INSERT INTO identities (id, name, type_id, is_admin, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
    for (let i = 0; i < 300; i++) insert.run([`id-${String(i).padStart(4, '0')}`, `page-${i}`, i % 3 ? 'User' : 'Device', i % 7 === 0 ? 1 : 0, now + i, now + i]);
  });

  afterAll(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const cases: [string, SQL | undefined, SQL[], number | null, number][] = [
    ['no filter, first page', undefined, [asc(identities.name), asc(identities.id)], 25, 0],
    ['contains, sorted by name', like(identities.name, '%1%'), [asc(identities.name), asc(identities.id)], 25, 0],
    ['two conditions, descending, second page', and(eq(identities.typeId, 'User'), eq(identities.isAdmin, false)), [desc(identities.createdAt), asc(identities.id)], 10, 10],
    ['last partial page', like(identities.name, '%2%'), [asc(identities.id)], 25, 50],
    ['no limit', eq(identities.isAdmin, true), [asc(identities.id)], null, 0],
    ['matches nothing', eq(identities.name, 'nobody'), [asc(identities.id)], 25, 0],
    ['past the end', like(identities.name, '%1%'), [asc(identities.id)], 25, 10_000],
    // 64 values: bound twice they would pass D1's 100 parameters, so page and count are two statements.
    ['a filter with many values', or(...Array.from({ length: 64 }, (_, i) => eq(identities.name, `page-${i * 3}`))), [asc(identities.id)], 25, 0],
  ];

  for (const [name, where, orderBy, limit, offset] of cases) {
    it(`agrees with page + count: ${name}`, async () => {
      const selection = { row: identities };
      const expectedRows = await store.db.select(selection).from(identities).where(where).orderBy(...orderBy).limit(limit ?? -1).offset(offset);
      const [expectedTotal] = await store.db.select({ n: count() }).from(identities).where(where);
      statements.length = 0;
      params.length = 0;
      const page = await pageWithTotal<{ row: typeof identities.$inferSelect }>(store.db, identities, selection, { where, orderBy, limit, offset });
      expect(page.total).toBe(expectedTotal.n);
      expect(page.rows).toEqual(expectedRows);
      // One statement, except the rare page past the end and a filter with many values; none over D1's limit.
      expect(statements).toHaveLength(offset >= 10_000 || name.includes('many values') ? 2 : 1);
      expect(Math.max(...params)).toBeLessThanOrEqual(100);
    });
  }
});
