import { and, eq, inArray, lte, or, sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../db/client.js';
import { apiSessions, authAttempts, authenticators, authPolicies, configTypes, identities, mfas } from '../db/schema/index.js';
import type { ConfigTypeCatalogue } from './config-types.js';

/** Whether the identity row being read has a verified MFA enrolment (its sessions then start partial, §1.3 step 4). */
export const hasVerifiedMfa = sql<number>`EXISTS (SELECT 1 FROM ${mfas} AS m WHERE m.identity_id = "identities"."id" AND m.is_verified = 1)`;

/** The updb authenticator for a username (exact, case-sensitive), with its identity, policy, failure count and MFA state, in one read. */
export async function findPasswordLogin(db: Db, username: string) {
  const rows = await db
    .select({ authenticator: authenticators, identity: identities, authPolicy: authPolicies, failedCount: authAttempts.failedCount, hasVerifiedMfa })
    .from(authenticators)
    .innerJoin(identities, eq(identities.id, authenticators.identityId))
    .leftJoin(authPolicies, eq(authPolicies.id, identities.authPolicyId))
    .leftJoin(authAttempts, eq(authAttempts.authenticatorId, authenticators.id))
    .where(and(eq(authenticators.username, username), eq(authenticators.method, 'updb')))
    .limit(1);
  return rows[0];
}

/**
 * SQL: the identity exists and is enabled at `now` (never disabled, or its timed disable is over); the
 * same rule as `isDisabled`, evaluated by the store inside a write so that the write decides.
 */
export function identityEnabledAt(identityId: string | Placeholder, now: number | Placeholder): SQL {
  return sql`EXISTS (SELECT 1 FROM ${identities} WHERE ${identities.id} = ${identityId} AND (${identities.disabledAt} IS NULL OR (${identities.disabledUntil} IS NOT NULL AND ${identities.disabledUntil} <= ${now})))`;
}

/**
 * Reserves one password check for an authenticator under a lockout policy, before the hash is spent: one
 * conditional upsert that counts the attempt only while fewer than `max + 1` attempts are counted and the
 * identity is enabled. Returns the attempt's number (1-based), or undefined when the attempt may not be
 * checked (the limit is used up, or the identity is disabled). Concurrent attempts each get their own
 * number, so a burst checks at most `max + 1` passwords whatever its size.
 */
export async function reserveAttempt(db: Db, authenticatorId: string, identityId: string, max: number, now: number): Promise<number | undefined> {
  const rows = await db
    .insert(authAttempts)
    .select(sql`SELECT ${authenticatorId}, 1, ${now} WHERE ${identityEnabledAt(identityId, now)}`)
    .onConflictDoUpdate({
      target: authAttempts.authenticatorId,
      set: { failedCount: sql`${authAttempts.failedCount} + 1`, lastFailedAt: now },
      setWhere: and(lte(authAttempts.failedCount, max), identityEnabledAt(identityId, now)),
    })
    .returning({ failedCount: authAttempts.failedCount });
  return rows[0]?.failedCount;
}

/** The id of the one attempts row that belongs to no authenticator (see `touchAttempts`). */
export const NO_AUTHENTICATOR = '~';

/**
 * A write of the same shape and cost as `reserveAttempt`, on a row no authenticator owns: failed logins
 * that reserve nothing (unknown user, no lockout policy, disabled identity) run it, so that every failed
 * login costs one write and one hash and the timing does not tell which case it was.
 */
export async function touchAttempts(db: Db, now: number): Promise<void> {
  await db
    .insert(authAttempts)
    .select(sql`SELECT ${NO_AUTHENTICATOR}, 1, ${now} WHERE NOT ${identityEnabledAt(NO_AUTHENTICATOR, now)}`)
    .onConflictDoUpdate({ target: authAttempts.authenticatorId, set: { failedCount: 1, lastFailedAt: now }, setWhere: sql`NOT ${identityEnabledAt(NO_AUTHENTICATOR, now)}` })
    .returning({ failedCount: authAttempts.failedCount });
}

export function resetFailures(db: Db, authenticatorId: string): BatchItem<'sqlite'> {
  return db.delete(authAttempts).where(eq(authAttempts.authenticatorId, authenticatorId));
}

/**
 * The `auth_attempts` key of an identity's failed second-factor attempts: per identity, not per
 * authenticator, so that a password login (which clears its authenticator's count) does not clear them.
 */
export function mfaAttemptKey(identityId: string): string {
  return `mfa:${identityId}`;
}

/** Forgets the failed attempts of every authenticator of an identity and of its MFA (admin enable, identity delete: run it first). */
export function resetIdentityFailures(db: Db, identityId: string): BatchItem<'sqlite'> {
  return db
    .delete(authAttempts)
    .where(
      or(
        inArray(authAttempts.authenticatorId, db.select({ id: authenticators.id }).from(authenticators).where(eq(authenticators.identityId, identityId))),
        eq(authAttempts.authenticatorId, mfaAttemptKey(identityId)),
      ),
    );
}

/** Disables an identity (a lockout or an admin action) until `until` (null = indefinitely): its API sessions end with it. */
export function disableIdentityStatements(db: Db, identityId: string, now: number, until: number | null): BatchItem<'sqlite'>[] {
  return [
    db.update(identities).set({ disabledAt: now, disabledUntil: until, updatedAt: now }).where(eq(identities.id, identityId)),
    db.delete(apiSessions).where(eq(apiSessions.identityId, identityId)),
  ];
}

/**
 * Locks an identity out: disables it until `until` (null = indefinitely) only if it is enabled now, ends its
 * API sessions and clears the authenticator's count, in one batch. Returns true when this call disabled it
 * (a concurrent lock or admin disable that came first is left as it is).
 */
export async function lockIdentity(db: Db, identityId: string, authenticatorId: string, now: number, until: number | null): Promise<boolean> {
  const batch = db as unknown as { batch(items: BatchItem<'sqlite'>[]): Promise<unknown[]> };
  const [updated] = await batch.batch([
    db
      .update(identities)
      .set({ disabledAt: now, disabledUntil: until, updatedAt: now })
      .where(and(eq(identities.id, identityId), identityEnabledAt(identityId, now)))
      .returning({ id: identities.id }),
    db.delete(apiSessions).where(eq(apiSessions.identityId, identityId)),
    resetFailures(db, authenticatorId),
  ]);
  return Array.isArray(updated) && updated.length > 0;
}

export async function findAuthPolicy(db: Db, id: string) {
  const rows = await db.select().from(authPolicies).where(eq(authPolicies.id, id)).limit(1);
  return rows[0];
}

/** At most this many requested entries are looked up (each is bound twice: as id and as name). */
const MAX_REQUESTED = 40;

/**
 * The config types among the requested entries (ids or names), in one read; none when nothing but
 * `all` or nothing at all was requested (most logins).
 */
export async function requestedConfigTypes(db: Db, requested: readonly unknown[] | null | undefined): Promise<ConfigTypeCatalogue> {
  const entries = [...new Set((requested ?? []).filter((v): v is string => typeof v === 'string' && v.length > 0 && v !== 'all'))].slice(0, MAX_REQUESTED);
  if (entries.length === 0 || (requested ?? []).includes('all')) return new Map();
  const rows = await db.select({ id: configTypes.id, name: configTypes.name }).from(configTypes).where(or(inArray(configTypes.id, entries), inArray(configTypes.name, entries)));
  const out = new Map<string, string>();
  for (const r of rows) out.set(r.id, r.id).set(r.name, r.id);
  return out;
}
