/**
 * The store side of the session check that every authenticated request makes: one indexed read by
 * token hash (session, identity and auth policy in one statement), and the rare writes it defers.
 */
import { and, eq, fillPlaceholders, getTableColumns, lt, sql, type Column, type SQL } from 'drizzle-orm';
import type { SelectedFields, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { preparedPer, readTogether, type Db } from '../db/client.js';
import { flatSelection, type PendingRead, type ReadAhead } from '../db/list-page.js';
import { extend } from '../lib/objects.js';
import { apiSessions, authPolicies, identities } from '../db/schema/index.js';
import type { ApiSessionRow, AuthPolicyRow, IdentityRow } from '../db/schema/rows.js';

/**
 * What every authenticated request knows of its identity and auth policy. Deliberately lean: each
 * column costs on every request, so the full rows are read only by the operations that render or
 * change them.
 */
const sessionIdentityColumns = {
  id: identities.id,
  name: identities.name,
  typeId: identities.typeId,
  isAdmin: identities.isAdmin,
  isDefaultAdmin: identities.isDefaultAdmin,
  authPolicyId: identities.authPolicyId,
  disabledAt: identities.disabledAt,
  disabledUntil: identities.disabledUntil,
  // service-updates answers from the session check alone: pollers cost no extra read.
  servicesChangedAt: identities.servicesChangedAt,
};
/** Every session column but the hash the lookup matched on: nothing renders it, so nothing reads it. */
const { tokenHash: _matchedOn, ...sessionColumns } = getTableColumns(apiSessions);
const sessionPolicyColumns = {
  id: authPolicies.id,
  name: authPolicies.name,
  requireTotp: authPolicies.requireTotp,
  requireExtJwtSigner: authPolicies.requireExtJwtSigner,
};
export type SessionIdentity = Pick<IdentityRow, keyof typeof sessionIdentityColumns>;
export type SessionPolicy = Pick<AuthPolicyRow, keyof typeof sessionPolicyColumns>;

/**
 * What one operation reads along with the session check, in the same statement: columns over the lookup's
 * row (the caller's `identities` and `api_sessions` rows by their table names; inside sub-queries nested
 * under a walk of many rows, the caller through `callerRef`),
 * and what makes its value from them. On D1 every statement is a round trip, so an operation whose first
 * reads are about the caller (`GET /current-identity`, `POST /sessions`, the client's `GET /services`)
 * rides on the read every authenticated request makes instead of following it with its own.
 */
export interface SessionRider<T> {
  /** Keys of the selection; prefixed by the rider's owner, so they never meet the session's own groups. */
  selection: Record<string, Column | SQL | SQLiteTable | Record<string, Column | SQL>>;
  /**
   * The values of the selection's placeholders besides `tokenHash`, from the request's parsed body; the
   * session is read without the rider when there is none to give (a body the operation will refuse).
   */
  params?(body: unknown): Record<string, unknown> | undefined;
  value(row: Record<string, unknown>, params: Record<string, unknown>): T;
}

/**
 * The caller's identity id or API session id inside a rider's columns: a lookup by the token hash the
 * session check binds, uncorrelated, so SQLite evaluates it once per statement (a reference to the
 * lookup's own row would be correlated, and sub-queries nested in a rider's columns would evaluate it
 * again for every row they visit).
 */
export function callerRef(column: 'identity' | 'apiSession'): SQL {
  return sql`(SELECT zt.${sql.raw(column === 'identity' ? 'identity_id' : 'id')} FROM ${apiSessions} AS zt WHERE zt.token_hash = ${sql.placeholder('tokenHash')})`;
}

/** A rider's value as a request carries it: which rider made it, so only that rider's owner reads it. */
export interface RiddenValue {
  rider: SessionRider<unknown>;
  value: unknown;
}

/** The value `rider` read with the session check, if the session was read with it. */
export function riddenValue<T>(ridden: RiddenValue | undefined, rider: SessionRider<T>): T | undefined {
  return ridden !== undefined && ridden.rider === rider ? (ridden.value as T) : undefined;
}

const SESSION_GROUPS = { apiSession: sessionColumns, identity: sessionIdentityColumns, authPolicy: sessionPolicyColumns };
/**
 * The session's own 28 columns travel as one JSON array (`flatSelection`'s packing): on D1 each value
 * of a result is carried and encoded on its own, and the lookup is the most frequent statement there is
 * (docs/benchmarks.md, "Figures of the packed session read": 5–8 % on workerd's session rows). A rider's columns stay columns.
 */
const PACKED_GROUPS = Object.keys(SESSION_GROUPS);

export interface SessionLookupRow {
  apiSession: Omit<ApiSessionRow, 'tokenHash'>;
  identity: SessionIdentity;
  /** All null when the identity's policy is gone (left join). */
  authPolicy: SessionPolicy | { [K in keyof SessionPolicy]: null };
  /** Set when the lookup carried a rider. */
  ridden?: RiddenValue;
  /** Set when an operation's first statement was read in the same round trip (`findSessionByTokenHash`'s `pending`). */
  readAhead?: ReadAhead;
}

/**
 * A caller whose token hash is a session of an admin identity: the guard of a list page read before the
 * session check has decided (`keptPageReadAhead`). Cheaper than the check, and looser (it ignores expiry and
 * MFA), which is all it must be: the page is used only once the check has admitted the caller, and the guard
 * only keeps a caller who could never be admitted from making the store read the page.
 */
export const ADMIN_CALLER: SQL = sql`EXISTS (SELECT 1 FROM ${apiSessions} AS zg JOIN ${identities} AS zi ON zi.id = zg.identity_id WHERE zg.token_hash = ${sql.placeholder('tokenHash')} AND (zi.is_admin = 1 OR zi.is_default_admin = 1))`;

/** The lookup with a rider's columns after the session's: one statement, prepared once per database handle. */
function lookupWith(rider: SessionRider<unknown> | undefined) {
  const selection = flatSelection(rider ? { ...SESSION_GROUPS, ...rider.selection } : SESSION_GROUPS, PACKED_GROUPS);
  const prepared = preparedPer((db) =>
    db
      .select(selection.fields as SelectedFields)
      .from(apiSessions)
      .innerJoin(identities, eq(identities.id, apiSessions.identityId))
      .leftJoin(authPolicies, eq(authPolicies.id, identities.authPolicyId))
      .where(eq(apiSessions.tokenHash, sql.placeholder('tokenHash')))
      .limit(1)
      .prepare(),
  );
  return { selection, prepared };
}

const plainLookup = lookupWith(undefined);
/** Riders are module constants, a handful: their lookups are kept for the process's (isolate's) life. */
const riderLookups = new Map<SessionRider<unknown>, ReturnType<typeof lookupWith>>();

/**
 * The session with this token hash, its identity and auth policy, and the rider's value when one is
 * given. Read as one value array and mapped by the selection's own decoders: drizzle's nested row
 * mapping cost ~4 % of a request.
 */
export async function findSessionByTokenHash(db: Db, tokenHash: string, rider?: SessionRider<unknown>, params: Record<string, unknown> = {}, pending?: PendingRead): Promise<SessionLookupRow | undefined> {
  let lookup = plainLookup;
  if (rider) {
    let kept = riderLookups.get(rider);
    if (!kept) riderLookups.set(rider, (kept = lookupWith(rider)));
    lookup = kept;
  }
  const placeholders = rider ? extend(params, { tokenHash }) : { tokenHash };
  const together = pending ? readTogether(db) : undefined;
  let values: unknown[][];
  let readAhead: ReadAhead | undefined;
  if (pending && together) {
    // The operation's first statement in the same round trip, behind its guard on the same token hash.
    const q = lookup.prepared(db).getQuery();
    const [session, page] = await together([
      { sql: q.sql, params: fillPlaceholders(q.params, placeholders) },
      { sql: pending.sql, params: fillPlaceholders(pending.params, extend(pending.placeholders, { tokenHash })) },
    ]);
    values = session;
    readAhead = pending.readAhead(page);
  } else {
    values = (await lookup.prepared(db).values(placeholders)) as unknown[][];
  }
  if (values.length === 0) return undefined;
  const row = lookup.selection.map(values[0]);
  const found = row as unknown as SessionLookupRow;
  if (rider) found.ridden = { rider, value: rider.value(row, params) };
  if (readAhead) found.readAhead = readAhead;
  return found;
}

export function deleteSessionById(db: Db, id: string): Promise<unknown> {
  return db.delete(apiSessions).where(eq(apiSessions.id, id)).run();
}

/**
 * Records activity unless another request already did within `intervalMs`: conditional, so that
 * concurrent requests at the interval boundary write the row once.
 */
export function touchSession(db: Db, id: string, now: number, intervalMs: number): Promise<unknown> {
  return db
    .update(apiSessions)
    .set({ lastActivityAt: now, updatedAt: now })
    .where(and(eq(apiSessions.id, id), lt(apiSessions.lastActivityAt, now - intervalMs + 1)))
    .run();
}
