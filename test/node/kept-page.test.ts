/**
 * src/db/list-page.ts `keptPage`: the kept page statement and its kept total give the same answer as a
 * fresh page query plus a count, before and after writes through this handle, through another
 * connection (another process) and by statements that bypass the app; a kept total is used only at the
 * versions it was counted at, so a count runs again exactly when a write a filter may observe happened.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { and, asc, count, desc, eq, gte, like, or, sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keptPage, type KeptPageQuery } from '../../src/db/list-page.js';
import { openStore, prepareDataDir, type NodeStore } from '../../src/db/node-store.js';
import { identities } from '../../src/db/schema/index.js';
import { identityListVersions } from '../../src/resources/identities/repo.js';
import { MIGRATIONS_DIR } from '../../src/node.js';

type Row = { row: typeof identities.$inferSelect };

describe('kept list page and total', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ziti-kept-'));
  let store: NodeStore;
  let other: InstanceType<typeof Database>;
  const statements: { sql: string; params: unknown[] }[] = [];
  const now = Date.now();

  beforeAll(async () => {
    prepareDataDir(dir);
    store = await openStore({ dataDir: dir, migrationsFolder: MIGRATIONS_DIR, queryLogger: { logQuery: (s, p) => void statements.push({ sql: s, params: p }) } });
    const insert = store.native!.native.prepare('INSERT INTO identities (id, name, type_id, is_admin, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
    for (let i = 0; i < 300; i++) insert.run([`id-${String(i).padStart(4, '0')}`, `kept-${i}`, i % 3 ? 'User' : 'Device', i % 7 === 0 ? 1 : 0, now + i, now + i]);
    // Another connection to the same file: a second controller process, or an operator's shell.
    other = new Database(join(dir, 'controller.db'));
  });

  afterAll(() => {
    other.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    statements.length = 0;
  });

  const byName = [asc(identities.name), asc(identities.id)];
  const cases: [string, SQL | undefined, SQL[], number | null, number][] = [
    ['no filter, first page', undefined, byName, 25, 0],
    ['contains, sorted by name', like(identities.name, '%1%'), byName, 25, 0],
    ['two conditions, descending, second page', and(eq(identities.typeId, 'User'), eq(identities.isAdmin, false)), [desc(identities.createdAt), asc(identities.id)], 10, 10],
    ['last partial page', like(identities.name, '%2%'), [asc(identities.id)], 25, 50],
    ['no limit', eq(identities.isAdmin, true), [asc(identities.id)], null, 0],
    ['matches nothing', eq(identities.name, 'nobody'), [asc(identities.id)], 25, 0],
    ['past the end', like(identities.name, '%1%'), [asc(identities.id)], 25, 10_000],
    ['updatedAt', gte(identities.updatedAt, now + 250), [asc(identities.id)], 25, 0],
    // 64 values: bound twice they would pass D1's 100 parameters, so the count is a statement of its own.
    ['a filter with many values', or(...Array.from({ length: 64 }, (_, i) => eq(identities.name, `kept-${i * 3}`))), [asc(identities.id)], 25, 0],
  ];

  async function expected(where: SQL | undefined, orderBy: SQL[], limit: number | null, offset: number) {
    const rows = await store.db.select({ row: identities }).from(identities).where(where).orderBy(...orderBy).limit(limit ?? -1).offset(offset);
    const [c] = await store.db.select({ n: count() }).from(identities).where(where);
    return { rows, total: c.n };
  }

  let builds = 0;
  function kept(key: string, where: SQL | undefined, orderBy: SQL[], limit: number | null, offset: number) {
    const build = (): KeptPageQuery => (builds++, { table: identities, selection: { row: identities }, where, orderBy, limit, offset, versions: identityListVersions });
    return keptPage<Row>(store.db, key, build);
  }

  /** Whether the last page statement counted: the kept versions it was given did not hold. */
  const counted = () => statements.filter((s) => s.sql.includes('CASE WHEN')).length;

  const lastVersions: Record<string, string> = {};
  // The version the filter with many values depends on (it does not name updated_at).
  const currentVersions = () => other.prepare("SELECT CAST(version AS TEXT) AS v FROM list_versions WHERE name = 'identities'").all();

  /** The kept versions a page statement was given (text), or null. */
  const keptVersion = (s: { params: unknown[] }) => (s.params.find((p) => typeof p === 'string' && /^-?\d+(\.-?\d+)*$/.test(p)) as string | undefined) ?? null;

  /** Every case kept and asked twice agrees with a fresh page and count; the second time it is given kept versions. */
  async function agreeAll(label: string, versioned = true) {
    for (const [name, where, orderBy, limit, offset] of cases) {
      const want = await expected(where, orderBy, limit, offset);
      // Whether the versions moved since this case was last kept (then the first ask counts).
      const fresh = lastVersions[name] !== JSON.stringify(await currentVersions());
      for (let i = 0; i < 2; i++) {
        statements.length = 0;
        const got = await kept(name, where, orderBy, limit, offset);
        expect({ rows: got.rows, total: got.total }, `${label}: ${name} (${i})`).toEqual(want);
        expect([got.limit, got.offset]).toEqual([limit, offset]);
        // One statement, except the rare page past the end (the page and a count), and a filter with many
        // values counted (no kept versions, or ones that no longer hold); none over D1's 100 parameters.
        const recounted = name.includes('many values') && (!versioned || (i === 0 && fresh));
        expect(statements, `${label}: ${name} (${i})`).toHaveLength(offset >= 10_000 || recounted ? 2 : 1);
        expect(Math.max(...statements.map((st) => st.params.length)), `${label}: ${name}`).toBeLessThanOrEqual(100);
        // A page without rows carries no versions (an empty first page needs no count, so none are learnt).
        lastVersions[name] = JSON.stringify(await currentVersions());
        // (A filter with many values is given none: its page statement only reads them.)
        if (i === 1 && !name.includes('many values')) expect(keptVersion(statements[0]) !== null, `${label}: ${name}: kept versions given`).toBe(versioned && want.total > 0);
      }
    }
  }

  it('agrees with page + count, and builds each statement once', async () => {
    await agreeAll('fresh');
    const built = builds;
    await agreeAll('again');
    expect(builds).toBe(built);
  });

  it('a kept total costs no count until a write a filter may observe', async () => {
    const where = like(identities.name, '%1%');
    await kept('contains', where, byName, 25, 0);
    statements.length = 0;
    const before = await kept('contains', where, byName, 25, 0);
    // The statement ran with the kept versions, which held: the total came back NULL and the kept one was used.
    expect(keptVersion(statements[0])).not.toBeNull();
    expect(before.total).toBe((await expected(where, byName, 25, 0)).total);

    // Columns no filter reads (what logins and policy writes stamp) leave every version alone.
    const versions = () => other.prepare("SELECT name, CAST(version AS TEXT) AS v FROM list_versions WHERE name LIKE 'identities%' ORDER BY name").all();
    const v0 = versions();
    other.prepare('UPDATE identities SET services_changed_at = ?, env_info = ?, sdk_info = ? WHERE id = ?').run([now, '{"os":"linux"}', '{"type":"go"}', 'id-0001']);
    expect(versions()).toEqual(v0);
    // A write that changes nothing observable (same name) leaves them too.
    other.prepare('UPDATE identities SET name = name WHERE id = ?').run(['id-0001']);
    expect(versions()).toEqual(v0);
  });

  /**
   * Whether the kept total is used: a write hidden from the versions (they are put back as they were)
   * shows through a count but not through a kept total.
   */
  async function usesKeptTotal(version?: string): Promise<boolean> {
    const where = like(identities.name, '%hit%');
    if (version) other.prepare("UPDATE list_versions SET version = ? WHERE name = 'identities'").run([BigInt(version)]);
    const before = await kept(`hit ${version}`, where, byName, 25, 0);
    const [saved] = other.prepare("SELECT version FROM list_versions WHERE name = 'identities'").safeIntegers(true).raw(true).all() as [bigint][];
    other.prepare('INSERT INTO identities (id, name, created_at, updated_at) VALUES (?, ?, 1, 1)').run([`id-hit-${before.total}-${version}`, `hit-${before.total}-${version}`]);
    other.prepare("UPDATE list_versions SET version = ? WHERE name = 'identities'").run([saved[0]]);
    const after = await kept(`hit ${version}`, where, byName, 25, 0);
    // Back to an honest version.
    other.prepare("UPDATE list_versions SET version = random() WHERE name = 'identities'").run([]);
    return after.total === before.total && after.rows.length === before.total + 1;
  }

  it('a kept total is used while the versions hold (no count), also at the extremes of 64 bits', async () => {
    other.prepare("INSERT INTO identities (id, name, created_at, updated_at) VALUES ('id-hit', 'hit', 1, 1)").run([]);
    expect(await usesKeptTotal()).toBe(true);
    expect(await usesKeptTotal('9223372036854775807')).toBe(true);
    expect(await usesKeptTotal('-9223372036854775808')).toBe(true);
    expect(await usesKeptTotal('9007199254740993')).toBe(true);
  });

  const writes: [string, string, unknown[]][] = [
    ['insert through another connection', 'INSERT INTO identities (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)', ['id-x1', 'kept-1-new', now, now]],
    ['rename out of the filter', 'UPDATE identities SET name = ? WHERE id = ?', ['renamed', 'id-0011']],
    ['type change', 'UPDATE identities SET type_id = ? WHERE id = ?', ['Device', 'id-0002']],
    ['admin flag', 'UPDATE identities SET is_admin = 1 WHERE id = ?', ['id-0003']],
    ['updatedAt moved (a login storing client info)', 'UPDATE identities SET updated_at = ?, env_info = ? WHERE id = ?', [now + 10_000, '{}', 'id-0004']],
    ['delete', 'DELETE FROM identities WHERE id = ?', ['id-0010']],
    ['many rows at once', "UPDATE identities SET is_admin = 1 WHERE name LIKE 'kept-2%'", []],
  ];
  for (const [name, statement, params] of writes) {
    it(`stays exact after a write that bypasses the app: ${name}`, async () => {
      await agreeAll(`before ${name}`);
      other.prepare(statement).run(params);
      await agreeAll(`after ${name}`);
    });
  }

  it('an updatedAt change recounts only the totals whose filter names updatedAt', async () => {
    await agreeAll('before');
    other.prepare('UPDATE identities SET updated_at = ? WHERE id = ?').run([now + 20_000, 'id-0005']);
    statements.length = 0;
    await kept('contains, sorted by name', like(identities.name, '%1%'), byName, 25, 0);
    expect(counted()).toBe(1);
    expect(keptVersion(statements[0])).not.toBeNull();
    const got = await kept('updatedAt', gte(identities.updatedAt, now + 250), [asc(identities.id)], 25, 0);
    expect(got.total).toBe((await expected(gte(identities.updatedAt, now + 250), [asc(identities.id)], 25, 0)).total);
  });

  it('writes through the handle itself (the app) are seen at once', async () => {
    await agreeAll('before');
    await store.db.insert(identities).values({ id: 'id-x2', name: 'kept-1-app', createdAt: now, updatedAt: now });
    await agreeAll('after insert');
    await store.db.update(identities).set({ name: 'kept-2-app' }).where(eq(identities.id, 'id-x2'));
    await agreeAll('after update');
    await store.db.delete(identities).where(eq(identities.id, 'id-x2'));
    await agreeAll('after delete');
  });

  it('without its version row, a total is counted every time and still exact', async () => {
    other.prepare("DELETE FROM list_versions WHERE name = 'identities'").run([]);
    try {
      // NULL versions: never kept, so every statement is given NULL and counts.
      await agreeAll('no version', false);
      other.prepare('INSERT INTO identities (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run(['id-x3', 'kept-1-noversion', now, now]);
      await agreeAll('no version, after insert', false);
    } finally {
      other.prepare("INSERT INTO list_versions (name, version) VALUES ('identities', random())").run([]);
    }
    await agreeAll('version back');
  });

  it('a restore that brings back older versions: the next write never reuses a version seen since', async () => {
    // A restore puts back the rows and the versions they had together. A counter would go forward from
    // there to values this process has already kept totals at, for other rows; random versions do not.
    const where = like(identities.name, '%3%');
    const snapshot = other.prepare('SELECT name, version FROM list_versions').raw(true).all() as [string, number | bigint][];
    other.prepare("INSERT INTO identities (id, name, created_at, updated_at) VALUES ('id-x4', 'kept-3-gone', 1, 1)").run([]);
    expect((await kept('restore', where, byName, 25, 0)).total).toBe((await expected(where, byName, 25, 0)).total);
    other.exec('BEGIN');
    other.prepare("DELETE FROM identities WHERE id = 'id-x4'").run([]);
    for (const [name, version] of snapshot) other.prepare('UPDATE list_versions SET version = ? WHERE name = ?').run([version, name]);
    other.exec('COMMIT');
    // Another write than the one undone, which the filter does not match.
    other.prepare("INSERT INTO identities (id, name, created_at, updated_at) VALUES ('id-x6', 'kept-none', 1, 1)").run([]);
    expect((await kept('restore', where, byName, 25, 0)).total).toBe((await expected(where, byName, 25, 0)).total);
  });

  it('compares versions as exact text: 64-bit values no double tells apart are different versions', async () => {
    const [row] = await store.db.values<[string]>(sql`SELECT CAST(version AS TEXT) FROM list_versions WHERE name = 'identities'`);
    expect(row[0]).toMatch(/^-?\d+$/);
    other.prepare("UPDATE list_versions SET version = 9223372036854775807 WHERE name = 'identities'").run([]);
    await agreeAll('max version');
    // A write whose trigger happened to draw a neighbour of the kept version.
    other.prepare("INSERT INTO identities (id, name, created_at, updated_at) VALUES ('id-x5', 'kept-1-bits', 1, 1)").run([]);
    other.prepare("UPDATE list_versions SET version = 9223372036854775806 WHERE name = 'identities'").run([]);
    await agreeAll('neighbouring version');
  });
});
