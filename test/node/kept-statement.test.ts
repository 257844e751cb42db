/**
 * src/db/client.ts `keptStatement`: the login batch's inserts, built once per handle, bind the same SQL and
 * the same values as the statements drizzle builds for each row, and write the same rows (on the native
 * store and on `@libsql/client`); a session certificate is written only with its session, and ends with it.
 * The login's SDK-info copy onto its session is kept the same way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getTableColumns, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityEnabledAt } from '../../src/auth/repo.js';
import type { Db, Statement } from '../../src/db/client.js';
import { openStore, prepareDataDir, type NodeStore } from '../../src/db/node-store.js';
import { apiSessionCertificates, apiSessionPosture, apiSessions, identities } from '../../src/db/schema/index.js';
import { qualified as q } from '../../src/crud/repo.js';
import { recordLoginSdkInfo } from '../../src/posture/repo.js';
import { MIGRATIONS_DIR, openNodeStore } from '../../src/node.js';
import { createApiSession, insertApiSessionWhileEnabled } from '../../src/resources/api-sessions/repo.js';
import { insertSessionCertificate } from '../../src/resources/session-certificates/repo.js';
import { createClient, type Client } from '@libsql/client';

type Built = { sql: string; params: unknown[] };
const built = (s: Statement): Built => {
  const q = (s as unknown as { _prepare(): { getQuery(): Built } })._prepare().getQuery();
  return { sql: q.sql, params: q.params };
};

/** The statements as drizzle built them for each row before they were kept. */
function builtSessionInsert(db: Db, row: typeof apiSessions.$inferSelect, now: number) {
  const values = Object.entries(getTableColumns(apiSessions)).map(([key, column]) => sql.param((row as Record<string, unknown>)[key] ?? null, column));
  return db
    .insert(apiSessions)
    .select(sql`SELECT ${sql.join(values, sql`, `)} WHERE ${identityEnabledAt(row.identityId, now)}`)
    .returning({ id: apiSessions.id });
}

/** The conditional certificate insert as drizzle builds it for one row (absent values: the column default). */
function builtCertificateInsert(db: Db, row: Partial<typeof apiSessionCertificates.$inferInsert>) {
  const values = Object.entries(getTableColumns(apiSessionCertificates)).map(([key, column]) => sql.param((row as Record<string, unknown>)[key] ?? column.default ?? null, column));
  return db
    .insert(apiSessionCertificates)
    .select(sql`SELECT ${sql.join(values, sql`, `)} WHERE EXISTS (SELECT 1 FROM ${apiSessions} WHERE ${apiSessions.id} = ${row.apiSessionId})`);
}

/** The login's SDK-info copy as drizzle built it per login. */
function builtLoginSdkInfo(db: Db, apiSessionId: string, identityId: string, at: number) {
  return db
    .insert(apiSessionPosture)
    .select(
      sql`SELECT ${apiSessionId}, ${identityId}, NULL, NULL, ${q(identities.sdkInfo)}, ${at} FROM ${identities}
        WHERE ${q(identities.id)} = ${identityId} AND ${q(identities.sdkInfo)} IS NOT NULL AND EXISTS (SELECT 1 FROM ${apiSessions} WHERE ${q(apiSessions.id)} = ${apiSessionId})`,
    )
    .onConflictDoNothing();
}

const now = Date.now();
const session = (id: string, identityId: string): typeof apiSessions.$inferSelect => ({
  id,
  createdAt: now,
  updatedAt: now,
  tags: '{}',
  isSystem: false,
  tokenHash: `hash-${id}`,
  identityId,
  authenticatorId: 'auth-1',
  ipAddress: '127.0.0.1',
  configTypes: '[]',
  isMfaRequired: true,
  isMfaComplete: false,
  passedMfaAt: null,
  isCertExtendable: true,
  improperClientCertChain: false,
  lastActivityAt: now,
});
const certificate = (id: string, apiSessionId: string) => ({
  id,
  createdAt: now,
  updatedAt: now,
  tags: '{}',
  apiSessionId,
  identityId: 'identity-1',
  subject: 'CN=device,O=OpenZiti',
  fingerprint: 'ab'.repeat(20),
  validFrom: now - 1000,
  validTo: now + 1000,
  certPem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
});

describe.each(['native', 'libsql'] as const)('kept login statements (%s store)', (kind) => {
  const dir = mkdtempSync(join(tmpdir(), 'ziti-kept-statement-'));
  let store: NodeStore | undefined;
  let libsql: Client | undefined;
  let db: Db;
  const rows = async (query: string) => (await db.all(sql.raw(query))) as Record<string, unknown>[];

  beforeAll(async () => {
    prepareDataDir(dir);
    store = await openStore({ dataDir: dir, migrationsFolder: MIGRATIONS_DIR });
    if (kind === 'native') db = store.db;
    else {
      libsql = createClient({ url: `file:${join(dir, 'controller.db')}` });
      db = await openNodeStore(libsql);
    }
    await db.run(sql`INSERT INTO identities (id, name, type_id, is_admin, created_at, updated_at) VALUES ('identity-1', 'device', 'Default', 0, ${now}, ${now})`);
    await db.run(sql`INSERT INTO identities (id, name, type_id, is_admin, created_at, updated_at, disabled_at) VALUES ('identity-2', 'disabled', 'Default', 0, ${now}, ${now}, ${now})`);
  });

  afterAll(() => {
    libsql?.close();
    store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('binds the SQL and values drizzle builds for the row', () => {
    expect(built(insertApiSessionWhileEnabled(db, session('s-1', 'identity-1'), now))).toEqual(built(builtSessionInsert(db, session('s-1', 'identity-1'), now)));
    const cert = certificate('c-1', 's-1');
    expect(built(insertSessionCertificate(db, cert))).toEqual(built(builtCertificateInsert(db, cert)));
    // Absent values take the column default.
    const { tags: _tags, ...withoutTags } = cert;
    expect(built(insertSessionCertificate(db, withoutTags))).toEqual(built(builtCertificateInsert(db, withoutTags)));
    expect(built(recordLoginSdkInfo(db, 's-1', 'identity-1', now))).toEqual(built(builtLoginSdkInfo(db, 's-1', 'identity-1', now)));
  });

  it('writes the session and its certificate in one batch, and no session for a disabled identity', async () => {
    expect(await createApiSession(db, session('s-2', 'identity-1'), now, [insertSessionCertificate(db, certificate('c-2', 's-2'))])).toBe(true);
    const [stored] = await rows("SELECT is_mfa_required, is_mfa_complete, passed_mfa_at, is_cert_extendable, improper_client_cert_chain, token_hash FROM api_sessions WHERE id = 's-2'");
    expect(stored).toEqual({ is_mfa_required: 1, is_mfa_complete: 0, passed_mfa_at: null, is_cert_extendable: 1, improper_client_cert_chain: 0, token_hash: 'hash-s-2' });
    const [cert] = await rows("SELECT api_session_id, is_system, tags, valid_to, cert_pem FROM api_session_certificates WHERE id = 'c-2'");
    expect(cert).toEqual({ api_session_id: 's-2', is_system: 0, tags: '{}', valid_to: now + 1000, cert_pem: certificate('c-2', 's-2').certPem });

    // Refused for a disabled identity: no session, and so no certificate either.
    expect(await createApiSession(db, session('s-3', 'identity-2'), now, [insertSessionCertificate(db, certificate('c-3', 's-3'))])).toBe(false);
    expect(await rows("SELECT id FROM api_sessions WHERE id = 's-3'")).toEqual([]);
    expect(await rows("SELECT id FROM api_session_certificates WHERE id = 'c-3'")).toEqual([]);

    // The certificate ends with its session (trigger, migration 0016).
    await db.run(sql`DELETE FROM api_sessions WHERE id = 's-2'`);
    expect(await rows("SELECT id FROM api_session_certificates WHERE id = 'c-2'")).toEqual([]);
  });
});
