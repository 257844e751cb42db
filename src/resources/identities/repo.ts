import { eq, sql, type Placeholder, type SQL } from 'drizzle-orm';
import { disableIdentityStatements, enableIdentityStatements } from '../../auth/lockout.js';
import { resetIdentityFailures } from '../../auth/repo.js';
import { atomic, type Db } from '../../db/client.js';
import { apiSessions, authenticators, authPolicies, identities, identityServiceConfigs, mfas } from '../../db/schema/index.js';
import { missingEntityIds } from '../../policy/repo.js';
import { compileRoleFilter, type ResolvedListQuery } from '../../crud/list-query.js';
import { listPage, qualified as q, type Statement } from '../../crud/repo.js';
import { identityEnrollmentsCascade, identityEnrollmentSummary } from '../../enrollment/repo.js';
import { identitySessionCertificatesCascade } from '../session-certificates/repo.js';
import { identityPostureCascade } from '../../posture/repo.js';

/**
 * What the identity detail shows besides its row, selected with it as correlated sub-queries so that a
 * detail is one read and a list page one SELECT (plus its COUNT): the auth policy's name, the
 * authenticator summary (at most one per method), whether a live API session exists and whether a
 * verified MFA enrolment exists.
 */
export function identityExtras(liveSince: number | Placeholder<'liveSince'>) {
  return {
    authPolicyName: sql<string | null>`(SELECT ${q(authPolicies.name)} FROM ${authPolicies} WHERE ${q(authPolicies.id)} = ${q(identities.authPolicyId)})`,
    authenticatorSummary: sql<string | null>`(SELECT json_group_array(json_object('id', ${q(authenticators.id)}, 'method', ${q(authenticators.method)}, 'username', ${q(authenticators.username)}, 'fingerprint', ${q(authenticators.certFingerprint)})) FROM ${authenticators} WHERE ${q(authenticators.identityId)} = ${q(identities.id)})`,
    enrollmentSummary: identityEnrollmentSummary(),
    hasApiSession: sql<number>`EXISTS (SELECT 1 FROM ${apiSessions} WHERE ${q(apiSessions.identityId)} = ${q(identities.id)} AND ${q(apiSessions.lastActivityAt)} >= ${liveSince})`,
    isMfaEnabled: sql<number>`EXISTS (SELECT 1 FROM ${mfas} AS m WHERE m.identity_id = ${q(identities.id)} AND m.is_verified = 1)`,
  };
}
export type IdentityExtraValues = { authPolicyName: string | null; authenticatorSummary: string | null; enrollmentSummary: string | null; hasApiSession: number; isMfaEnabled: number };

export async function authPolicyExists(db: Db, id: string): Promise<boolean> {
  const rows = await db.select({ id: authPolicies.id }).from(authPolicies).where(eq(authPolicies.id, id)).limit(1);
  return rows.length > 0;
}

/**
 * The extras of the kept identity list (src/crud/service.ts `listKept`): built once, the live-session
 * cut-off filled per request (`liveSince`).
 */
export function keptIdentityExtras() {
  return identityExtras(sql.placeholder('liveSince'));
}

/**
 * What moves with every identity write a list count may observe (drizzle/0015_list_versions.sql): inserts,
 * deletes and the filterable columns; `updated_at` apart, since logins move it.
 */
export const identityListVersions = { name: 'identities', columns: { updated_at: 'identities.updated_at' } };

/** Service ids among `ids` that do not exist (hosting costs and precedences are keyed by service id). */
export function missingServiceIds(db: Db, ids: string[]): Promise<string[]> {
  return missingEntityIds(db, 'service', ids);
}

/**
 * What goes with a deleted identity, in its batch: failed-attempt rows (selected through its
 * authenticators, so this runs first), API sessions, authenticators, enrollments, session certificates, MFA
 * service-config overrides and reported posture with failed service requests (policy links and `@id`
 * entries are removed by the service; an API session's posture goes with the session, by trigger).
 */
export function identityCascade(db: Db, identityId: string): Statement[] {
  return [
    resetIdentityFailures(db, identityId),
    db.delete(apiSessions).where(eq(apiSessions.identityId, identityId)),
    db.delete(authenticators).where(eq(authenticators.identityId, identityId)),
    identityEnrollmentsCascade(db, identityId),
    identitySessionCertificatesCascade(db, identityId),
    db.delete(identityServiceConfigs).where(eq(identityServiceConfigs.identityId, identityId)),
    db.delete(mfas).where(eq(mfas.identityId, identityId)),
    ...identityPostureCascade(db, identityId),
  ];
}

/** Disables the identity (until `until`, or indefinitely when null) and ends its API sessions, in one batch. */
export async function disableIdentityRow(db: Db, identityId: string, now: number, until: number | null): Promise<void> {
  await atomic(db, disableIdentityStatements(db, identityId, now, until));
}

/** Enables the identity and forgets its failed password attempts, in one batch. */
export async function enableIdentityRow(db: Db, identityId: string, now: number): Promise<void> {
  await atomic(db, [db.update(identities).set({ disabledAt: null, disabledUntil: null, updatedAt: now }).where(eq(identities.id, identityId)), ...enableIdentityStatements(db, identityId)]);
}

/** The `roleFilter` / `roleSemantic` pre-selection of the identity list (reference §3.5). */
export function identityRoleFilter(roleFilter: readonly string[] | undefined, roleSemantic: string | undefined): SQL | undefined {
  return compileRoleFilter(roleFilter, roleSemantic, identities.roleAttributes, identities.id);
}

/** The `id` field of the role-attribute list: the attribute text (reference §3.4). */
const ATTR_VALUE = sql`${sql.identifier('attr')}.${sql.identifier('value')}`;
export const roleAttributeFields = { id: { type: 'string' as const, sql: ATTR_VALUE } };

/** Distinct role attributes of all identities, filtered, sorted and paged, with their total. */
export async function listIdentityRoleAttributes(db: Db, q: ResolvedListQuery): Promise<{ values: string[]; total: number }> {
  const each = sql`json_each(CASE WHEN json_valid(${identities.roleAttributes}) THEN ${identities.roleAttributes} ELSE '[]' END)`;
  const source = sql`(SELECT DISTINCT ${sql.identifier('ra')}.${sql.identifier('value')} AS value FROM ${identities}, ${each} AS ${sql.identifier('ra')}) AS ${sql.identifier('attr')}`;
  const where: SQL | undefined = q.where;
  const { rows, total } = await listPage(
    (p) => db.select({ value: sql<string>`${ATTR_VALUE}` }).from(source).where(where).orderBy(...q.orderBy).limit(p.limit).offset(p.offset),
    () => db.select({ n: sql<number>`count(*)` }).from(source).where(where),
    q,
  );
  return { values: rows.map((r) => r.value), total };
}
