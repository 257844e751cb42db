import { and, eq, getTableColumns, gt, sql, type SQL } from 'drizzle-orm';
import { preparedPer, type Db } from '../db/client.js';
import { authenticators, authPolicies, cas, edgeRouters, enrollments, identities, transitRouters } from '../db/schema/index.js';
import { defineEntity } from '../crud/entity.js';
import { qualified as q, uniqueViolation, type Statement } from '../crud/repo.js';
import { hasVerifiedMfa } from '../auth/repo.js';
import { ApiError } from '../errors.js';
import { commonFields, type FieldMap } from '../crud/list-query.js';
import { shortId } from '../lib/ids.js';

export type EnrollmentRow = typeof enrollments.$inferSelect;
export type AuthenticatorInsert = typeof authenticators.$inferInsert;
export type EnrollmentMethod = EnrollmentRow['method'];

export const enrollmentFields: FieldMap = {
  ...commonFields(enrollments),
  method: { type: 'string', sql: enrollments.method },
  identity: { type: 'string', sql: enrollments.identityId },
  identityId: { type: 'string', sql: enrollments.identityId },
  ca: { type: 'string', sql: enrollments.caId },
  caId: { type: 'string', sql: enrollments.caId },
  edgeRouter: { type: 'string', sql: enrollments.edgeRouterId },
  edgeRouterId: { type: 'string', sql: enrollments.edgeRouterId },
  transitRouter: { type: 'string', sql: enrollments.transitRouterId },
  transitRouterId: { type: 'string', sql: enrollments.transitRouterId },
  expiresAt: { type: 'datetime', sql: enrollments.expiresAt },
};

/** Enrollments through the generic list/detail/delete machinery; writes go through the service's rules. */
export const enrollmentEntity = defineEntity<Record<never, never>>()({
  entity: 'enrollment',
  collection: 'enrollments',
  table: enrollments,
  fields: enrollmentFields,
  props: {},
  newId: shortId,
});

/** Names of the referenced identity, CA and router, selected with each row for their entityRefs. */
export function enrollmentExtras() {
  return {
    identityName: sql<string | null>`(SELECT ${q(identities.name)} FROM ${identities} WHERE ${q(identities.id)} = ${q(enrollments.identityId)})`,
    caName: sql<string | null>`(SELECT ${q(cas.name)} FROM ${cas} WHERE ${q(cas.id)} = ${q(enrollments.caId)})`,
    edgeRouterName: sql<string | null>`(SELECT ${q(edgeRouters.name)} FROM ${edgeRouters} WHERE ${q(edgeRouters.id)} = ${q(enrollments.edgeRouterId)})`,
    transitRouterName: sql<string | null>`(SELECT ${q(transitRouters.name)} FROM ${transitRouters} WHERE ${q(transitRouters.id)} = ${q(enrollments.transitRouterId)})`,
  };
}

/**
 * The identity detail's pending enrollments as one correlated sub-query (JSON array), so the identity
 * detail and list stay one read.
 */
export function identityEnrollmentSummary() {
  return sql<string | null>`(SELECT json_group_array(json_object('id', ${q(enrollments.id)}, 'method', ${q(enrollments.method)}, 'caId', ${q(enrollments.caId)}, 'caName', (SELECT ${q(cas.name)} FROM ${cas} WHERE ${q(cas.id)} = ${q(enrollments.caId)}), 'expiresAt', ${q(enrollments.expiresAt)}, 'jwt', ${q(enrollments.jwtSealed)})) FROM ${enrollments} WHERE ${q(enrollments.identityId)} = ${q(identities.id)})`;
}

export function ofIdentity(identityId: string) {
  return eq(enrollments.identityId, identityId);
}

export function insertEnrollment(db: Db, row: typeof enrollments.$inferInsert): Statement {
  return db.insert(enrollments).values(row);
}

export async function findIdentity(db: Db, id: string) {
  const rows = await db.select({ id: identities.id, name: identities.name, typeId: identities.typeId }).from(identities).where(eq(identities.id, id)).limit(1);
  return rows[0];
}

export async function findCa(db: Db, id: string) {
  const rows = await db.select().from(cas).where(eq(cas.id, id)).limit(1);
  return rows[0];
}

export async function usernameTaken(db: Db, username: string): Promise<boolean> {
  const rows = await db.select({ id: authenticators.id }).from(authenticators).where(eq(authenticators.username, username)).limit(1);
  return rows.length > 0;
}

/** The enrollment a token belongs to (one indexed read on the token hash). */
export async function findByTokenHash(db: Db, hash: string) {
  const rows = await db.select().from(enrollments).where(eq(enrollments.tokenHash, hash)).limit(1);
  return rows[0];
}

export function refreshStatement(db: Db, id: string, values: { tokenHash: string; jwtSealed: string; issuedAt: number; expiresAt: number }): Statement {
  return db.update(enrollments).set({ ...values, updatedAt: values.issuedAt }).where(eq(enrollments.id, id));
}

/**
 * Consumes an enrollment exactly once and gives its identity the authenticator, in one batch: the
 * authenticator is inserted only while the enrollment still exists unexpired (INSERT ... SELECT ...
 * WHERE EXISTS), then the enrollment is deleted. The DELETE's row count decides: of any number of
 * concurrent attempts with one token, exactly one deletes the row, and only its batch inserted an
 * authenticator. Returns whether this attempt won.
 */
export async function consumeEnrollment(db: Db, enrollment: { id: string; tokenHash: string }, now: number, authenticator: AuthenticatorInsert | null, extra: Statement[] = []): Promise<boolean> {
  const live = and(eq(enrollments.id, enrollment.id), eq(enrollments.tokenHash, enrollment.tokenHash), gt(enrollments.expiresAt, now));
  // Statements of `extra` must themselves be conditional on the enrollment (enrollmentIsLive): a losing
  // attempt's batch runs after the winner's delete and must change nothing.
  const statements: Statement[] = [];
  if (authenticator) statements.push(insertIfLive(db, authenticator, enrollment.id, enrollment.tokenHash, now));
  statements.push(...extra);
  const remove = db.delete(enrollments).where(live).returning({ id: enrollments.id });
  statements.push(remove);
  let results: unknown[];
  try {
    results = (await (db as unknown as { batch(s: Statement[]): Promise<unknown[]> }).batch(statements)) as unknown[];
  } catch (e) {
    // A store rule of one authenticator per identity and method, where the schema has one.
    if (uniqueViolation(e)?.includes('authenticators.identity_id')) throw new ApiError('MAX_AUTHENTICATOR_METHODS_REACHED');
    throw e;
  }
  const deleted = results[results.length - 1] as unknown[];
  return Array.isArray(deleted) && deleted.length === 1;
}

/**
 * `INSERT INTO authenticators SELECT <values> WHERE EXISTS (<live enrollment>)`. The value list follows the
 * table's own column order (absent values take the column default), so the statement stays right when
 * columns are added.
 */
function insertIfLive(db: Db, a: AuthenticatorInsert, enrollmentId: string, hash: string, now: number): Statement {
  const values = Object.entries(getTableColumns(authenticators)).map(([key, column]) => {
    const given = (a as Record<string, unknown>)[key];
    const value = given !== undefined ? given : (column.default ?? null);
    return sql`${value === null ? null : column.mapToDriverValue(value)}`;
  });
  return db.insert(authenticators).select(sql`SELECT ${sql.join(values, sql`, `)} WHERE ${enrollmentIsLive({ id: enrollmentId, tokenHash: hash }, now)}`);
}

/** `EXISTS (the enrollment, with this token, unexpired)`: the condition of every write an enrollment pays for. */
export function enrollmentIsLive(enrollment: { id: string; tokenHash: string }, now: number): SQL {
  return sql`EXISTS (SELECT 1 FROM ${enrollments} WHERE ${q(enrollments.id)} = ${enrollment.id} AND ${q(enrollments.tokenHash)} = ${enrollment.tokenHash} AND ${q(enrollments.expiresAt)} > ${now})`;
}

/** Enrollments that go with a deleted identity. */
export function identityEnrollmentsCascade(db: Db, identityId: string): Statement {
  return db.delete(enrollments).where(eq(enrollments.identityId, identityId));
}

/** Enrollments that go with a deleted CA (reference §7.7). */
export function caEnrollmentsCascade(db: Db, caId: string): Statement {
  return db.delete(enrollments).where(eq(enrollments.caId, caId));
}

function prepareCertLogin(db: Db) {
  return db
    .select({
      // Only what a login needs of the authenticator.
      authenticator: {
        id: authenticators.id,
        isIssuedByNetwork: authenticators.isIssuedByNetwork,
        isExtendRequested: authenticators.isExtendRequested,
        isKeyRollRequested: authenticators.isKeyRollRequested,
      },
      // The columns a login uses (auth methods' LoginIdentity / LoginPolicy): each column costs.
      identity: {
        id: identities.id,
        name: identities.name,
        envInfo: identities.envInfo,
        sdkInfo: identities.sdkInfo,
        disabledAt: identities.disabledAt,
        disabledUntil: identities.disabledUntil,
        updatedAt: identities.updatedAt,
      },
      authPolicy: {
        id: authPolicies.id,
        requireTotp: authPolicies.requireTotp,
        requireExtJwtSigner: authPolicies.requireExtJwtSigner,
        certAllowed: authPolicies.certAllowed,
        certAllowExpired: authPolicies.certAllowExpired,
      },
      // A verified MFA enrolment makes the new session partial (§1.3 step 4).
      hasVerifiedMfa,
    })
    .from(authenticators)
    .innerJoin(identities, eq(identities.id, authenticators.identityId))
    .leftJoin(authPolicies, eq(authPolicies.id, identities.authPolicyId))
    .where(eq(authenticators.certFingerprint, sql.placeholder('fingerprint')))
    .limit(1)
    .prepare();
}

/** Prepared once per database handle: building this query costs as much as running it. */
const certLogin = preparedPer(prepareCertLogin);

/**
 * The authenticator a certificate fingerprint belongs to, with its identity and auth policy: one indexed
 * read, run on every certificate login.
 */
export async function findCertLogin(db: Db, fingerprint: string) {
  const rows = await certLogin(db).all({ fingerprint });
  return rows[0];
}


/** Third-party CAs usable for a purpose (store order), in one read. */
export async function casWhere(db: Db, purpose: 'auth' | 'autoEnroll') {
  const flag = purpose === 'auth' ? cas.isAuthEnabled : cas.isAutoCaEnrollmentEnabled;
  return db.select().from(cas).where(and(eq(flag, true), eq(cas.isVerified, true))).orderBy(cas.createdAt, cas.id);
}

export async function anyCa(db: Db): Promise<boolean> {
  return (await db.select({ id: cas.id }).from(cas).limit(1)).length > 0;
}

/** The identity with an externalId, with its auth policy. */
export async function identityByExternalId(db: Db, externalId: string) {
  const rows = await db
    .select({ identity: identities, authPolicy: authPolicies, hasVerifiedMfa })
    .from(identities)
    .leftJoin(authPolicies, eq(authPolicies.id, identities.authPolicyId))
    .where(eq(identities.externalId, externalId))
    .limit(1);
  return rows[0];
}

/** A new identity (CA auto-enrollment) and, when given, its cert authenticator, in one batch. */
export async function insertIdentityWith(db: Db, identity: typeof identities.$inferInsert, authenticator: AuthenticatorInsert | null): Promise<void> {
  const statements: Statement[] = [db.insert(identities).values(identity)];
  if (authenticator) statements.push(db.insert(authenticators).values(authenticator));
  await (db as unknown as { batch(s: Statement[]): Promise<unknown> }).batch(statements);
}

export type AuthenticatorRow = typeof authenticators.$inferSelect;

export async function findAuthenticator(db: Db, id: string): Promise<AuthenticatorRow | undefined> {
  const rows = await db.select().from(authenticators).where(eq(authenticators.id, id)).limit(1);
  return rows[0];
}

/** Records a pending extension (overwriting an earlier pending one, reference §6.5). */
export async function setPendingExtension(db: Db, id: string, pem: string, fingerprint: string, now: number): Promise<void> {
  await db.update(authenticators).set({ unverifiedCertPem: pem, unverifiedFingerprint: fingerprint, updatedAt: now }).where(eq(authenticators.id, id));
}

/**
 * Makes the pending certificate the authenticator's, only while that very certificate is still the pending
 * one (a conditional update whose row count decides), with the session-certificate changes in the same
 * batch. Returns whether it applied.
 */
export async function applyExtension(
  db: Db,
  id: string,
  pendingFingerprint: string,
  values: { certPem: string; publicKeyPrint: string; lastExtendRolledKeys: boolean; now: number },
  extra: Statement[],
): Promise<boolean> {
  const update = db
    .update(authenticators)
    .set({
      certPem: values.certPem,
      certFingerprint: pendingFingerprint,
      publicKeyPrint: values.publicKeyPrint,
      unverifiedCertPem: null,
      unverifiedFingerprint: null,
      isExtendRequested: false,
      isKeyRollRequested: false,
      lastExtendRolledKeys: values.lastExtendRolledKeys,
      updatedAt: values.now,
    })
    .where(and(eq(authenticators.id, id), eq(authenticators.unverifiedFingerprint, pendingFingerprint)))
    .returning({ id: authenticators.id });
  // A concurrent verify of the same pending certificate loses on the row count; its extra statements
  // (dropping session certificates of the old fingerprint, recording the new one for its own session)
  // are what the winner's do, so they are harmless.
  const results = (await (db as unknown as { batch(s: Statement[]): Promise<unknown[]> }).batch([update, ...extra])) as unknown[];
  return Array.isArray(results[0]) && (results[0] as unknown[]).length === 1;
}

/** Admin request to extend (and perhaps roll the key of) cert authenticators. */
export async function requestExtension(db: Db, where: { id?: string; identityId?: string }, rollKeys: boolean, now: number): Promise<void> {
  const cond = where.id ? eq(authenticators.id, where.id) : and(eq(authenticators.identityId, where.identityId!), eq(authenticators.method, 'cert'));
  await db.update(authenticators).set({ isExtendRequested: true, isKeyRollRequested: rollKeys, extendRequestedAt: now, updatedAt: now }).where(cond);
}

export async function allCas(db: Db) {
  return db.select().from(cas).orderBy(cas.createdAt, cas.id);
}

/** The stored certificate PEM of an authenticator (the fingerprint-only login path reads it). */
export async function authenticatorCertPem(db: Db, id: string): Promise<string | null> {
  const rows = await db.select({ certPem: authenticators.certPem }).from(authenticators).where(eq(authenticators.id, id)).limit(1);
  return rows[0]?.certPem ?? null;
}

export async function findAuthenticatorFlags(db: Db, id: string) {
  const rows = await db
    .select({ isIssuedByNetwork: authenticators.isIssuedByNetwork, isExtendRequested: authenticators.isExtendRequested, isKeyRollRequested: authenticators.isKeyRollRequested })
    .from(authenticators)
    .where(eq(authenticators.id, id))
    .limit(1);
  return rows[0];
}

/** The auth policy of an identity (updb enrollment applies its password rules). */
export async function identityPolicy(db: Db, identityId: string) {
  const rows = await db.select({ policy: authPolicies }).from(identities).innerJoin(authPolicies, eq(authPolicies.id, identities.authPolicyId)).where(eq(identities.id, identityId)).limit(1);
  return rows[0]?.policy;
}
