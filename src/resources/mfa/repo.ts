import { and, eq, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Db, Statement } from '../../db/client.js';
import { apiSessions, authAttempts, identities, mfas } from '../../db/schema/index.js';

export type MfaRow = typeof mfas.$inferSelect;

export async function findMfa(db: Db, identityId: string): Promise<MfaRow | undefined> {
  const rows = await db.select().from(mfas).where(eq(mfas.identityId, identityId)).limit(1);
  return rows[0];
}

/** Inserts the enrolment unless the identity has one (unique index); false when it already had one. */
export async function insertMfa(db: Db, row: MfaRow): Promise<boolean> {
  const rows = await db.insert(mfas).values(row).onConflictDoNothing().returning({ id: mfas.id });
  return rows.length > 0;
}

export async function identityExists(db: Db, id: string): Promise<boolean> {
  return (await db.select({ id: identities.id }).from(identities).where(eq(identities.id, id)).limit(1)).length > 0;
}

/** Admin removal: every enrolment of the identity, verified or not. */
export async function deleteIdentityMfa(db: Db, identityId: string): Promise<void> {
  await db.delete(mfas).where(eq(mfas.identityId, identityId));
}

/**
 * What must still hold for a code to be consumed, checked by the write itself so that of concurrent
 * requests presenting the same code exactly one changes the row:
 * - a TOTP code: its step is later than the last accepted one (no replay);
 * - a recovery code: the stored list is still the one the code was found in (every write re-encrypts
 *   with a fresh IV, so any other consumption changes the ciphertext).
 */
export type Consumption = { kind: 'totp'; step: number } | { kind: 'recovery'; storedCodes: string };

function stillUnused(c: Consumption): SQL | undefined {
  return c.kind === 'totp' ? or(isNull(mfas.lastUsedStep), lt(mfas.lastUsedStep, c.step)) : eq(mfas.recoveryCodes, c.storedCodes);
}

/** Statements batched after a consuming write run only if that write was this request's (its use id is stored). */
function won(mfaId: string, useId: string): SQL {
  return sql`EXISTS (SELECT 1 FROM ${mfas} WHERE ${mfas.id} = ${mfaId} AND ${mfas.lastUseId} = ${useId})`;
}

export interface ConsumeWrite {
  mfaId: string;
  useId: string;
  consumption: Consumption;
  now: number;
  /** Extra columns to write with the consumption (verification, new recovery codes). */
  set?: Partial<Pick<MfaRow, 'isVerified' | 'recoveryCodes'>>;
  /** Only while unverified (verification) or only once verified (everything else). */
  verified: boolean;
}

function consumeStatement(db: Db, w: ConsumeWrite) {
  const set: Partial<MfaRow> = { ...w.set, lastUseId: w.useId, updatedAt: w.now };
  if (w.consumption.kind === 'totp') set.lastUsedStep = w.consumption.step;
  return db
    .update(mfas)
    .set(set)
    .where(and(eq(mfas.id, w.mfaId), eq(mfas.isVerified, w.verified), stillUnused(w.consumption)))
    .returning({ id: mfas.id });
}

/**
 * Consumes a code and, in the same batch and only if this request's write won, runs `then` (complete
 * the session, clear failed attempts). Returns whether it won.
 */
export async function consumeCode(db: Db, w: ConsumeWrite, then: (won: SQL) => Statement[]): Promise<boolean> {
  const first = consumeStatement(db, w);
  const rest = then(won(w.mfaId, w.useId));
  const batchable = db as unknown as { batch(items: Statement[]): Promise<unknown[]> };
  const results = await batchable.batch([first, ...rest]);
  return Array.isArray(results[0]) && results[0].length > 0;
}

/** Deletes a verified enrolment if the code is still unused (conditional: concurrent deletes with one code delete once). */
export async function deleteWithCode(db: Db, mfaId: string, consumption: Consumption): Promise<boolean> {
  const rows = await db
    .delete(mfas)
    .where(and(eq(mfas.id, mfaId), stillUnused(consumption)))
    .returning({ id: mfas.id });
  return rows.length > 0;
}

/** Deletes an unverified enrolment (no code needed); false when it was verified or removed meanwhile. */
export async function deleteUnverified(db: Db, mfaId: string): Promise<boolean> {
  const rows = await db
    .delete(mfas)
    .where(and(eq(mfas.id, mfaId), eq(mfas.isVerified, false)))
    .returning({ id: mfas.id });
  return rows.length > 0;
}

/** Marks the caller's session as having passed MFA (`required` too after a verification, §4.1). */
export function completeSession(db: Db, sessionId: string, now: number, condition: SQL, required: boolean): Statement {
  return db
    .update(apiSessions)
    .set({ isMfaComplete: true, passedMfaAt: now, updatedAt: now, ...(required ? { isMfaRequired: true } : {}) })
    .where(and(eq(apiSessions.id, sessionId), condition));
}

/** Clears the identity's failed second-factor attempts, under the same winning condition. */
export function clearMfaFailures(db: Db, attemptKey: string, condition: SQL): Statement {
  return db.delete(authAttempts).where(and(eq(authAttempts.authenticatorId, attemptKey), condition));
}
