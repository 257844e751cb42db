import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { cas } from '../../db/schema/index.js';
import { caEnrollmentsCascade } from '../../enrollment/repo.js';
import { defineEntity } from '../../crud/entity.js';
import { type Statement } from '../../crud/repo.js';
import { commonFields, jsonArraySet, type FieldMap } from '../../crud/list-query.js';
import type { CaCreate } from '../../generated/management-types.js';
import { shortId } from '../../lib/ids.js';

export type CaRow = typeof cas.$inferSelect;

export const DEFAULT_NAME_FORMAT = '[caName]-[commonName]';

export const caFields: FieldMap = {
  ...commonFields(cas),
  name: { type: 'string', sql: cas.name },
  fingerprint: { type: 'string', sql: cas.fingerprint },
  certPem: { type: 'string', sql: cas.certPem },
  isVerified: { type: 'bool', sql: cas.isVerified },
  verificationToken: { type: 'string', sql: cas.verificationToken },
  isAutoCaEnrollmentEnabled: { type: 'bool', sql: cas.isAutoCaEnrollmentEnabled },
  isOttCaEnrollmentEnabled: { type: 'bool', sql: cas.isOttCaEnrollmentEnabled },
  isAuthEnabled: { type: 'bool', sql: cas.isAuthEnabled },
  identityNameFormat: { type: 'string', sql: cas.identityNameFormat },
  identityRoles: jsonArraySet(cas.identityRoles),
};

/** Third-party CAs as the management API writes them; certificate, fingerprint and verification are set by the service. */
export const caEntity = defineEntity<CaCreate>()({
  entity: 'ca',
  collection: 'cas',
  table: cas,
  fields: caFields,
  props: {
    name: { column: 'name', kind: 'name' },
    isAutoCaEnrollmentEnabled: { column: 'isAutoCaEnrollmentEnabled', kind: 'bool' },
    isOttCaEnrollmentEnabled: { column: 'isOttCaEnrollmentEnabled', kind: 'bool' },
    isAuthEnabled: { column: 'isAuthEnabled', kind: 'bool' },
    identityRoles: { column: 'identityRoles', kind: 'attributes' },
    identityNameFormat: { column: 'identityNameFormat', kind: 'string', convert: (v: string) => (v && v.trim() !== '' ? v : DEFAULT_NAME_FORMAT) },
    externalIdClaim: { column: 'externalIdClaim', kind: 'json' },
  },
  unique: [
    { column: 'name', field: 'name' },
    { column: 'fingerprint', field: 'certPem' },
  ],
  newId: shortId,
});

/** The only write that sets isVerified, and only once (409 otherwise): a conditional update. */
export async function markVerified(db: Db, id: string, now: number): Promise<boolean> {
  const rows = await db
    .update(cas)
    .set({ isVerified: true, updatedAt: now })
    .where(and(eq(cas.id, id), eq(cas.isVerified, false)))
    .returning({ id: cas.id });
  return rows.length > 0;
}

export async function caByFingerprint(db: Db, fingerprint: string): Promise<CaRow | undefined> {
  const rows = await db.select().from(cas).where(eq(cas.fingerprint, fingerprint)).limit(1);
  return rows[0];
}

export function caCascade(db: Db, id: string): Statement[] {
  return [caEnrollmentsCascade(db, id)];
}
