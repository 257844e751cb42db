/**
 * The OIDC provider's queries (src/db/schema/oidc.ts). Every step of a flow is a conditional write whose row
 * count decides, so that concurrent or replayed requests cannot both succeed.
 */
import { and, asc, desc, eq, getTableColumns, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { identityEnabledAt } from '../auth/repo.js';
import type { Db, SQL, Statement } from '../db/client.js';
import { configTypes, identities, oidcAuthRequests, oidcRevocations, oidcSessions, oidcSigningKeys } from '../db/schema/index.js';

export type AuthRequestRow = typeof oidcAuthRequests.$inferSelect;
export type OidcSessionRow = typeof oidcSessions.$inferSelect;
export type RevocationKind = (typeof oidcRevocations.$inferSelect)['kind'];
export type SigningKeyRow = typeof oidcSigningKeys.$inferSelect;

type Batchable = { batch(items: Statement[]): Promise<unknown[]> };
const returned = (result: unknown): boolean => Array.isArray(result) && result.length > 0;

// ---------------------------------------------------------------------------------------------------------
// Authorization requests

export async function insertAuthRequest(db: Db, row: AuthRequestRow): Promise<void> {
  await db.insert(oidcAuthRequests).values(row);
}

/** A live (unexpired) request by the hash of its id. */
export async function findAuthRequest(db: Db, idHash: string, now: number): Promise<AuthRequestRow | undefined> {
  const rows = await db
    .select()
    .from(oidcAuthRequests)
    .where(and(eq(oidcAuthRequests.idHash, idHash), gt(oidcAuthRequests.expiresAt, now)))
    .limit(1);
  return rows[0];
}

/** A request by the hash of its code, redeemed or not, while it lives (a replay must be recognised). */
export async function findAuthRequestByCode(db: Db, codeHash: string, now: number): Promise<AuthRequestRow | undefined> {
  const rows = await db
    .select()
    .from(oidcAuthRequests)
    .where(and(eq(oidcAuthRequests.codeHash, codeHash), gt(oidcAuthRequests.expiresAt, now)))
    .limit(1);
  return rows[0];
}

export type PrimaryLogin = Pick<
  AuthRequestRow,
  | 'identityId'
  | 'authenticatorId'
  | 'amr'
  | 'authTime'
  | 'totpRequired'
  | 'extJwtPending'
  | 'certExtendable'
  | 'certExtendRequested'
  | 'certKeyRollRequested'
  | 'improperChain'
  | 'sdkInfo'
  | 'envInfo'
  | 'configTypes'
  | 'certFingerprints'
>;

/**
 * Records a primary login on a live request that has none yet, while the identity is enabled, in one batch
 * with the login's own statements (cleared failure counts, the identity's client info). True when it won.
 */
export async function recordPrimaryLogin(db: Db, idHash: string, now: number, login: PrimaryLogin, statements: Statement[]): Promise<boolean> {
  const update = db
    .update(oidcAuthRequests)
    .set(login)
    .where(
      and(
        eq(oidcAuthRequests.idHash, idHash),
        gt(oidcAuthRequests.expiresAt, now),
        isNull(oidcAuthRequests.identityId),
        isNull(oidcAuthRequests.consumedAt),
        identityEnabledAt(login.identityId!, now),
      ),
    )
    .returning({ id: oidcAuthRequests.idHash });
  const [first] = await (db as unknown as Batchable).batch([update, ...statements]);
  return returned(first);
}

/** Marks the TOTP step done, in the batch that consumes the code and only if that consumption won. */
export function completeTotpStatement(db: Db, idHash: string, amr: string, won: SQL): Statement {
  return db
    .update(oidcAuthRequests)
    .set({ totpDone: true, amr })
    .where(and(eq(oidcAuthRequests.idHash, idHash), eq(oidcAuthRequests.totpDone, false), isNull(oidcAuthRequests.consumedAt), won));
}

/** Clears the outstanding secondary external JWT. */
export async function completeExtJwt(db: Db, idHash: string, signerId: string, amr: string, now: number): Promise<boolean> {
  const rows = await db
    .update(oidcAuthRequests)
    .set({ extJwtPending: null, amr })
    .where(and(eq(oidcAuthRequests.idHash, idHash), eq(oidcAuthRequests.extJwtPending, signerId), gt(oidcAuthRequests.expiresAt, now)))
    .returning({ id: oidcAuthRequests.idHash });
  return rows.length > 0;
}

/** Every factor done: what the callback and the code require. */
function loginDone(): SQL {
  return and(
    sql`${oidcAuthRequests.identityId} IS NOT NULL`,
    or(eq(oidcAuthRequests.totpRequired, false), eq(oidcAuthRequests.totpDone, true)),
    isNull(oidcAuthRequests.extJwtPending),
  )!;
}

/** Issues (or re-issues) the code of a finished, unredeemed request. True when the request qualified. */
export async function issueCode(db: Db, idHash: string, codeHash: string, now: number): Promise<boolean> {
  const rows = await db
    .update(oidcAuthRequests)
    .set({ codeHash })
    .where(and(eq(oidcAuthRequests.idHash, idHash), gt(oidcAuthRequests.expiresAt, now), isNull(oidcAuthRequests.consumedAt), loginDone()))
    .returning({ id: oidcAuthRequests.idHash });
  return rows.length > 0;
}

/**
 * Redeems a code once: marks the request consumed and, in the same batch and only for the request whose
 * write won, creates the OIDC session (refresh family). True when this call won.
 */
export async function redeemCode(db: Db, idHash: string, codeHash: string, consumeId: string, now: number, session: OidcSessionRow | undefined): Promise<boolean> {
  const consume = db
    .update(oidcAuthRequests)
    .set({ consumedAt: now, consumeId })
    .where(and(eq(oidcAuthRequests.idHash, idHash), eq(oidcAuthRequests.codeHash, codeHash), isNull(oidcAuthRequests.consumedAt), gt(oidcAuthRequests.expiresAt, now)))
    .returning({ id: oidcAuthRequests.idHash });
  const won = sql`EXISTS (SELECT 1 FROM ${oidcAuthRequests} WHERE ${oidcAuthRequests.idHash} = ${idHash} AND ${oidcAuthRequests.consumeId} = ${consumeId})`;
  const statements: Statement[] = [consume];
  if (session) {
    const values = Object.entries(getTableColumns(oidcSessions)).map(([key, column]) => sql.param((session as Record<string, unknown>)[key] ?? null, column));
    statements.push(db.insert(oidcSessions).select(sql`SELECT ${sql.join(values, sql`, `)} WHERE ${won}`));
  }
  const [first] = await (db as unknown as Batchable).batch(statements);
  return returned(first);
}

/** Deletes requests that expired before `before` (at most `max`). */
export async function deleteExpiredAuthRequests(db: Db, before: number, max: number): Promise<void> {
  const expired = db.select({ id: oidcAuthRequests.idHash }).from(oidcAuthRequests).where(lt(oidcAuthRequests.expiresAt, before)).limit(max);
  await db.delete(oidcAuthRequests).where(inArray(oidcAuthRequests.idHash, expired));
}

// ---------------------------------------------------------------------------------------------------------
// OIDC sessions (refresh-token families)

export async function findOidcSession(db: Db, id: string): Promise<OidcSessionRow | undefined> {
  const rows = await db.select().from(oidcSessions).where(eq(oidcSessions.id, id)).limit(1);
  return rows[0];
}

/**
 * Rotates the family from `fromJti` (the refresh token presented) to `toJti`, only if `fromJti` is the one
 * in force and the session is live: of two requests presenting the same token, one wins.
 */
export async function rotateRefresh(db: Db, id: string, fromJti: string, toJti: string, now: number, expiresAt: number): Promise<boolean> {
  const rows = await db
    .update(oidcSessions)
    .set({ currentJti: toJti, previousJti: fromJti, rotatedAt: now, updatedAt: now, expiresAt })
    .where(and(eq(oidcSessions.id, id), eq(oidcSessions.currentJti, fromJti), isNull(oidcSessions.revokedAt), gt(oidcSessions.expiresAt, now)))
    .returning({ id: oidcSessions.id });
  return rows.length > 0;
}

/** Puts a new refresh token in force for a live session (an exchange of an access token). */
export async function replaceRefresh(db: Db, id: string, toJti: string, now: number, expiresAt: number): Promise<boolean> {
  const rows = await db
    .update(oidcSessions)
    .set({ currentJti: toJti, previousJti: sql`${oidcSessions.currentJti}`, rotatedAt: now, updatedAt: now, expiresAt })
    .where(and(eq(oidcSessions.id, id), isNull(oidcSessions.revokedAt)))
    .returning({ id: oidcSessions.id });
  return rows.length > 0;
}

/**
 * Ends a session: marks it revoked (refresh tokens refused) and appends it to the deny-list (access tokens
 * refused everywhere within the poll bound), in one batch. True when the session existed and was live.
 */
export async function revokeOidcSession(db: Db, id: string, now: number): Promise<boolean> {
  const update = db
    .update(oidcSessions)
    .set({ revokedAt: now, updatedAt: now })
    .where(and(eq(oidcSessions.id, id), isNull(oidcSessions.revokedAt)))
    .returning({ id: oidcSessions.id });
  // Appended only by the write that ended it (a session already ended has its row, or its identity's).
  const ended = sql`EXISTS (SELECT 1 FROM ${oidcSessions} WHERE ${oidcSessions.id} = ${id} AND ${oidcSessions.revokedAt} = ${now})`;
  const append = db.insert(oidcRevocations).select(sql`SELECT NULL, 'session', ${id}, ${FOREVER}, ${now} WHERE ${ended}`);
  const [first] = await (db as unknown as Batchable).batch([update, append]);
  return returned(first);
}

export async function deleteEndedSessions(db: Db, before: number, max: number): Promise<void> {
  const ended = db.select({ id: oidcSessions.id }).from(oidcSessions).where(lt(oidcSessions.expiresAt, before)).limit(max);
  await db.delete(oidcSessions).where(inArray(oidcSessions.id, ended));
}

// ---------------------------------------------------------------------------------------------------------
// Revocations (the deny-list)

/** `not_before` that stops every token of the subject (year 9999), as the triggers write it. */
export const FOREVER = 253_402_300_799_999;

export function insertRevocation(db: Db, kind: RevocationKind, subject: string, notBefore: number, now: number): Statement {
  return db.insert(oidcRevocations).values({ kind, subject, notBefore, createdAt: now });
}

export type RevocationRow = Pick<typeof oidcRevocations.$inferSelect, 'seq' | 'kind' | 'subject' | 'notBefore' | 'createdAt'>;

/** Rows appended after `afterSeq` (created at `horizon` or later), oldest first, at most `limit`. */
export async function readRevocations(db: Db, afterSeq: number, horizon: number, limit: number): Promise<RevocationRow[]> {
  return db
    .select({ seq: oidcRevocations.seq, kind: oidcRevocations.kind, subject: oidcRevocations.subject, notBefore: oidcRevocations.notBefore, createdAt: oidcRevocations.createdAt })
    .from(oidcRevocations)
    .where(and(gt(oidcRevocations.seq, afterSeq), sql`${oidcRevocations.createdAt} >= ${horizon}`))
    .orderBy(asc(oidcRevocations.seq))
    .limit(limit);
}

export async function pruneRevocations(db: Db, before: number): Promise<void> {
  await db.delete(oidcRevocations).where(lt(oidcRevocations.createdAt, before));
}

// ---------------------------------------------------------------------------------------------------------
// Signing keys

/** Records a key (its kid is unique: a second instance's insert of the same key changes nothing). */
export async function publishSigningKey(db: Db, row: SigningKeyRow): Promise<void> {
  await db.insert(oidcSigningKeys).values(row).onConflictDoNothing();
}

/** Every recorded key, public parts only. */
export async function readSigningKeys(db: Db): Promise<Omit<SigningKeyRow, 'encryptedKey'>[]> {
  const { encryptedKey: _private, ...publicColumns } = getTableColumns(oidcSigningKeys);
  return db.select(publicColumns).from(oidcSigningKeys);
}

/** The ID-token keys with their (encrypted) private keys, the longest-lived first. */
export async function readIdTokenKeys(db: Db): Promise<SigningKeyRow[]> {
  return db.select().from(oidcSigningKeys).where(eq(oidcSigningKeys.use, 'id-token')).orderBy(desc(oidcSigningKeys.notAfter), asc(oidcSigningKeys.kid)).limit(5);
}

// ---------------------------------------------------------------------------------------------------------
// Reads a flow needs

/** What tokens say about an identity, read fresh whenever tokens are minted. */
export async function findTokenIdentity(db: Db, id: string) {
  const rows = await db
    .select({
      id: identities.id,
      name: identities.name,
      isAdmin: identities.isAdmin,
      isDefaultAdmin: identities.isDefaultAdmin,
      externalId: identities.externalId,
      authPolicyId: identities.authPolicyId,
      disabledAt: identities.disabledAt,
      disabledUntil: identities.disabledUntil,
    })
    .from(identities)
    .where(eq(identities.id, id))
    .limit(1);
  return rows[0];
}
export type TokenIdentity = NonNullable<Awaited<ReturnType<typeof findTokenIdentity>>>;

/** Config types whose id or name is one of `entries` (at most 40 entries: 80 parameters). */
export async function findConfigTypes(db: Db, entries: string[]): Promise<{ id: string; name: string }[]> {
  if (entries.length === 0) return [];
  return db
    .select({ id: configTypes.id, name: configTypes.name })
    .from(configTypes)
    .where(or(inArray(configTypes.id, entries), inArray(configTypes.name, entries)));
}
