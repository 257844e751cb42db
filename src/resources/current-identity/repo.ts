import { and, count, eq, ne, sql } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { atomic, type Db } from '../../db/client.js';
import { authenticators, identities } from '../../db/schema/index.js';
import type { ResolvedListQuery } from '../../http/list-query.js';

export type AuthenticatorRow = typeof authenticators.$inferSelect;

function prepareIdentityRead(db: Db) {
  return db
    .select({ identity: identities, authenticator: { id: authenticators.id, method: authenticators.method, username: authenticators.username, fingerprint: authenticators.certFingerprint } })
    .from(identities)
    .leftJoin(authenticators, eq(authenticators.identityId, identities.id))
    .where(eq(identities.id, sql.placeholder('id')))
    .prepare();
}

/** `GET /current-identity` is a hot path: its query is prepared once per database handle. */
const identityReads = new WeakMap<Db, ReturnType<typeof prepareIdentityRead>>();

/** The identity row with its authenticators' summary fields, in one read (one row per authenticator). */
export async function identityWithAuthenticators(db: Db, identityId: string) {
  let read = identityReads.get(db);
  if (!read) identityReads.set(db, (read = prepareIdentityRead(db)));
  const rows = await read.all({ id: identityId });
  if (rows.length === 0) return undefined;
  return { identity: rows[0].identity, authenticators: rows.flatMap((r) => (r.authenticator?.id ? [r.authenticator] : [])) };
}

export async function listIdentityAuthenticators(db: Db, identityId: string, q: ResolvedListQuery) {
  const where = and(eq(authenticators.identityId, identityId), q.where);
  const [rows, total] = await Promise.all([
    db.select().from(authenticators).where(where).orderBy(...q.orderBy).limit(q.limit ?? -1).offset(q.offset),
    db.select({ n: count() }).from(authenticators).where(where),
  ]);
  return { rows, total: total[0]?.n ?? 0 };
}

/** An authenticator only if it belongs to the identity: another identity's reads as absent. */
export async function findIdentityAuthenticator(db: Db, identityId: string, id: string): Promise<AuthenticatorRow | undefined> {
  const rows = await db.select().from(authenticators).where(and(eq(authenticators.id, id), eq(authenticators.identityId, identityId))).limit(1);
  return rows[0];
}

export async function usernameTaken(db: Db, username: string, exceptId: string): Promise<boolean> {
  const rows = await db.select({ id: authenticators.id }).from(authenticators).where(and(eq(authenticators.username, username), ne(authenticators.id, exceptId))).limit(1);
  return rows.length > 0;
}

export interface AuthenticatorChanges {
  username?: string;
  passwordHash?: string;
  tags?: string;
  updatedAt: number;
}

/**
 * Writes the changes with the extra statements in one batch. Returns false when the unique username
 * index refused them (a concurrent change took the name between the check and the write).
 */
export async function saveAuthenticator(db: Db, id: string, changes: AuthenticatorChanges, extra: BatchItem<'sqlite'>[]): Promise<boolean> {
  try {
    await atomic(db, [db.update(authenticators).set(changes).where(eq(authenticators.id, id)), ...extra]);
    return true;
  } catch (e) {
    if (isUniqueViolation(e)) return false;
    throw e;
  }
}

function isUniqueViolation(e: unknown): boolean {
  for (let err: unknown = e, depth = 0; err && depth < 4; err = (err as { cause?: unknown }).cause, depth++) {
    if (/UNIQUE constraint failed/i.test(String((err as Error).message ?? err))) return true;
  }
  return false;
}
