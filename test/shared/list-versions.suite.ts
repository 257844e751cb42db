/**
 * The `list_versions` triggers (drizzle/0015_list_versions.sql) and the kept identity list built on them
 * (docs/adr/0014-identity-list.md), on Node and on D1: every identity column a list filter or the
 * roleFilter reads moves a version when it changes, so a kept total is never served for rows it did not
 * count; the columns logins and policy writes stamp move none, so they do not cost a recount.
 */
import { getTableColumns, is, sql, Column, SQL } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/client.js';
import { identities } from '../../src/db/schema/index.js';
import { identityEntity } from '../../src/resources/identities/entity.js';
import { adminApi, uniqueName } from './identities.suite.js';
import type { SuiteContext } from './suite.js';

/** The SQL column names an expression reads. */
function columnsOf(x: unknown): string[] {
  if (is(x, Column)) return [x.name];
  if (is(x, SQL)) return x.queryChunks.flatMap(columnsOf);
  return [];
}

/** Every identities column a list filter (any field) or the roleFilter (role attributes, id) can read. */
const FILTERED = new Set([
  ...Object.values(identityEntity.fields).flatMap((f) => columnsOf('values' in f ? f.values : f.sql)),
  identities.roleAttributes.name,
  identities.id.name,
]);

async function versions(db: Db): Promise<Record<string, string | null>> {
  const rows = await db.values<[string, string | null]>(sql`SELECT name, CAST(version AS TEXT) FROM list_versions WHERE name IN ('identities', 'identities.updated_at')`);
  return Object.fromEntries(rows.map(([n, v]) => [n, v]));
}

/** A value of the column's kind that differs from `current`. */
function another(column: Column, current: unknown): unknown {
  // 2, not 1: one default admin at most (a partial unique index on is_default_admin = 1).
  if (column.name === 'is_default_admin') return 2;
  if (column.dataType === 'number' || column.dataType === 'boolean') return current === 1 || current === true ? 0 : 1 + (typeof current === 'number' ? current : 0);
  if (column.name === 'role_attributes' || column.name === 'trace_channels') return JSON.stringify([uniqueName('a')]);
  if (column.name.endsWith('_info') || column.name.endsWith('s') || column.name === 'app_data' || column.name === 'tags') return JSON.stringify({ k: uniqueName('v') });
  return uniqueName('v');
}

export default function listVersionsSuite({ client, db }: SuiteContext): void {
  const admin = adminApi(client);

  describe('list versions of identities', () => {
    it('the filter reads only columns the triggers watch (updated_at apart)', () => {
      expect(FILTERED.size).toBeGreaterThanOrEqual(11);
      expect([...FILTERED].every((c) => Object.values(getTableColumns(identities)).some((col) => col.name === c))).toBe(true);
    });

    it('a change of any column a filter reads moves the identities version; updated_at its own; the rest none', async () => {
      const now = Date.now();
      const moved: Record<string, string[]> = {};
      for (const column of Object.values(getTableColumns(identities)) as Column[]) {
        const id = uniqueName('lv');
        await db().run(sql`INSERT INTO identities (id, name, created_at, updated_at) VALUES (${id}, ${id}, ${now}, ${now})`);
        const [row] = await db().values<unknown[]>(sql`SELECT ${sql.identifier(column.name)} FROM identities WHERE id = ${id}`);
        const before = await versions(db());
        const value = another(column, row[0]);
        await db().run(sql`UPDATE identities SET ${sql.identifier(column.name)} = ${value} WHERE id = ${id}`);
        const after = await versions(db());
        moved[column.name] = Object.keys(before).filter((k) => before[k] !== after[k]);
        await db().run(sql`DELETE FROM identities WHERE id = ${column.name === 'id' ? value : id}`);
      }
      for (const [column, names] of Object.entries(moved)) {
        const want = column === 'updated_at' ? ['identities.updated_at'] : FILTERED.has(column) ? ['identities'] : [];
        expect(names, column).toEqual(want);
      }
    });

    it('inserts and deletes move the identities version; an update that changes nothing moves none', async () => {
      const id = uniqueName('lv');
      const v0 = await versions(db());
      await db().run(sql`INSERT INTO identities (id, name, created_at, updated_at) VALUES (${id}, ${id}, 1, 1)`);
      const v1 = await versions(db());
      expect(v1.identities).not.toBe(v0.identities);
      await db().run(sql`UPDATE identities SET name = name, updated_at = updated_at, tags = tags WHERE id = ${id}`);
      expect(await versions(db())).toEqual(v1);
      await db().run(sql`DELETE FROM identities WHERE id = ${id}`);
      expect((await versions(db())).identities).not.toBe(v1.identities);
    });
  });

  describe('kept identity list', () => {
    const list = async (filter: string, extra = '') => {
      const reply = await admin.call(`/identities?filter=${encodeURIComponent(filter)}${extra}`);
      expect(reply.status, reply.text.slice(0, 300)).toBe(200);
      return { total: reply.body.meta.pagination.totalCount as number, names: (reply.body.data as { name: string }[]).map((d) => d.name), body: reply.body };
    };

    it('totals stay exact across creates, renames, attribute changes and deletes, asked again and again', async () => {
      const prefix = uniqueName('kept');
      const filter = `name contains "${prefix}" sort by name asc limit 2`;
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push(await admin.createIdentity({ name: `${prefix}-${i}`, roleAttributes: i === 0 ? ['kept-a'] : [] }));
      for (let i = 0; i < 2; i++) expect(await list(filter)).toMatchObject({ total: 3, names: [`${prefix}-0`, `${prefix}-1`] });
      // Another page of the same filter shares its total.
      expect(await list(`name contains "${prefix}" sort by name asc skip 2 limit 2`)).toMatchObject({ total: 3, names: [`${prefix}-2`] });

      ids.push(await admin.createIdentity({ name: `${prefix}-3` }));
      expect((await list(filter)).total).toBe(4);
      expect((await admin.call(`/identities/${ids[1]}`, { method: 'PATCH', body: { name: uniqueName('away') } })).status).toBe(200);
      expect(await list(filter)).toMatchObject({ total: 3, names: [`${prefix}-0`, `${prefix}-2`] });

      const roleFiltered = `&roleFilter=${encodeURIComponent('#kept-a')}`;
      expect((await list(filter, roleFiltered)).total).toBe(1);
      expect((await admin.call(`/identities/${ids[2]}`, { method: 'PATCH', body: { roleAttributes: ['kept-a'] } })).status).toBe(200);
      expect((await list(filter, roleFiltered)).total).toBe(2);

      expect((await admin.call(`/identities/${ids[0]}`, { method: 'DELETE' })).status).toBe(200);
      expect(await list(filter)).toMatchObject({ total: 2, names: [`${prefix}-2`, `${prefix}-3`] });
      expect((await list(filter, roleFiltered)).total).toBe(1);
    });

    it('a total over updatedAt follows a change of updatedAt alone (what a login storing client info does)', async () => {
      const prefix = uniqueName('touched');
      const id = await admin.createIdentity({ name: prefix });
      const [[updatedAt]] = await db().values<[number]>(sql`SELECT updated_at FROM identities WHERE id = ${id}`);
      const later = new Date(updatedAt + 3_600_000).toISOString();
      const filter = `name contains "${prefix}" and updatedAt >= datetime(${later})`;
      for (let i = 0; i < 2; i++) expect((await list(filter)).total).toBe(0);
      await db().run(sql`UPDATE identities SET updated_at = ${updatedAt + 7_200_000}, env_info = '{}' WHERE id = ${id}`);
      expect((await list(filter)).total).toBe(1);
    });

    it('a filter with as many values as a filter may have (64) still lists with its exact total within D1\'s 100 parameters', async () => {
      const prefix = uniqueName('wide');
      for (let i = 0; i < 2; i++) await admin.createIdentity({ name: `${prefix}-${i}` });
      const names = Array.from({ length: 64 }, (_, i) => `"${prefix}-${i}"`);
      const filter = `${names.map((n) => `name = ${n}`).join(' or ')} sort by name limit 1`;
      for (let i = 0; i < 2; i++) expect(await list(filter)).toMatchObject({ total: 2, names: [`${prefix}-0`] });
      await admin.createIdentity({ name: `${prefix}-2` });
      expect(await list(filter)).toMatchObject({ total: 3, names: [`${prefix}-0`] });
      expect(await list(filter.replace('limit 1', 'skip 5 limit 1'))).toMatchObject({ total: 3, names: [] });
    });

    it('the one-statement page of other lists (API sessions) takes a filter with 64 values too', async () => {
      const ids = Array.from({ length: 64 }, (_, i) => `"nobody-${i}"`);
      const reply = await admin.call(`/api-sessions?filter=${encodeURIComponent(ids.map((id) => `id = ${id}`).join(' or '))}`);
      expect(reply.status, reply.text.slice(0, 300)).toBe(200);
      expect(reply.body.meta.pagination.totalCount).toBe(0);
    });

    it('a bad roleSemantic is reported before a bad filter, asked once or again', async () => {
      for (let i = 0; i < 2; i++) {
        const reply = await admin.call(`/identities?roleFilter=${encodeURIComponent('#a')}&roleSemantic=neither&filter=${encodeURIComponent('name ~~ 1')}`);
        expect(reply.status).toBe(400);
        expect(reply.body.error.cause.field).toBe('semantic');
      }
    });

    it('the same answer as the first time: items, meta and totals of a kept list', async () => {
      const prefix = uniqueName('same');
      for (let i = 0; i < 3; i++) await admin.createIdentity({ name: `${prefix}-${i}`, tags: { i } });
      const first = await list(`name contains "${prefix}" sort by name desc limit 2`);
      const again = await list(`name contains "${prefix}" sort by name desc limit 2`);
      expect(again.body).toEqual(first.body);
      expect(first.body.meta.pagination).toEqual({ limit: 2, offset: 0, totalCount: 3 });
    });
  });
}
