import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { apiSessionCertificates } from '../../db/schema/index.js';
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

export function insertSessionCertificate(db: Db, row: typeof apiSessionCertificates.$inferInsert): Statement {
  return db.insert(apiSessionCertificates).values(row);
}

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
