import { and, eq, getTableColumns, sql } from 'drizzle-orm';
import { keptStatement, type Db } from '../../db/client.js';
import { apiSessionCertificates, apiSessions } from '../../db/schema/index.js';
import { defineEntity } from '../../crud/entity.js';
import { type Statement } from '../../crud/repo.js';
import { commonFields, type FieldMap } from '../../crud/list-query.js';
import { shortId } from '../../lib/ids.js';

export type SessionCertificateRow = typeof apiSessionCertificates.$inferSelect;

export const sessionCertificateFields: FieldMap = {
  ...commonFields(apiSessionCertificates),
  subject: { type: 'string', sql: apiSessionCertificates.subject },
  fingerprint: { type: 'string', sql: apiSessionCertificates.fingerprint },
  validFrom: { type: 'datetime', sql: apiSessionCertificates.validFrom },
  validTo: { type: 'datetime', sql: apiSessionCertificates.validTo },
};

export const sessionCertificateEntity = defineEntity<Record<never, never>>()({
  entity: 'apiSessionCertificate',
  collection: 'current-api-session/certificates',
  table: apiSessionCertificates,
  fields: sessionCertificateFields,
  props: {},
  newId: shortId,
});

/** Absent values take the column default, as in an insert drizzle builds. */
export function insertSessionCertificate(db: Db, row: typeof apiSessionCertificates.$inferInsert): Statement {
  const values: Record<string, unknown> = {};
  for (const [key, column] of CERTIFICATE_COLUMNS) {
    const given = (row as Record<string, unknown>)[key];
    values[key] = given !== undefined ? given : (column.default ?? null);
  }
  return certificateInsert(db, values);
}

const CERTIFICATE_COLUMNS = Object.entries(getTableColumns(apiSessionCertificates));

/**
 * Built once per handle: every certificate login writes one (reference §3.6). Written only while its API
 * session exists (in a login's batch, after the session's own conditional insert): a certificate ends
 * with its session (the trigger of migration 0016), so none may be left without one.
 */
const certificateInsert = keptStatement((db) => {
  const values = CERTIFICATE_COLUMNS.map(([key, column]) => sql.param(sql.placeholder(key), column));
  return db
    .insert(apiSessionCertificates)
    .select(sql`SELECT ${sql.join(values, sql`, `)} WHERE EXISTS (SELECT 1 FROM ${apiSessions} WHERE ${apiSessions.id} = ${sql.placeholder('apiSessionId')})`)
    .prepare();
});

export function ofSession(apiSessionId: string) {
  return eq(apiSessionCertificates.apiSessionId, apiSessionId);
}

/** One of the session's own certificates, or undefined (another session's is as good as missing). */
export async function findOwn(db: Db, apiSessionId: string, id: string): Promise<SessionCertificateRow | undefined> {
  const rows = await db.select().from(apiSessionCertificates).where(and(eq(apiSessionCertificates.id, id), ofSession(apiSessionId))).limit(1);
  return rows[0];
}

export async function deleteOwn(db: Db, apiSessionId: string, id: string): Promise<boolean> {
  const rows = await db.delete(apiSessionCertificates).where(and(eq(apiSessionCertificates.id, id), ofSession(apiSessionId))).returning({ id: apiSessionCertificates.id });
  return rows.length > 0;
}

/** Session certificates carrying a fingerprint (replaced on extend-verify, reference §6.5). */
export function deleteByFingerprint(db: Db, fingerprint: string): Statement {
  return db.delete(apiSessionCertificates).where(eq(apiSessionCertificates.fingerprint, fingerprint));
}

export function identitySessionCertificatesCascade(db: Db, identityId: string): Statement {
  return db.delete(apiSessionCertificates).where(eq(apiSessionCertificates.identityId, identityId));
}
