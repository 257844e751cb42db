import type { Deps } from '../../deps.js';
import { notFound } from '../../errors.js';
import { endSession } from '../../oidc/sessions.js';
import { listMeta, resolveListQuery, type ListQueryParams } from '../../crud/list-query.js';
import type { ListResult } from '../../crud/service.js';
import { apiSessionFields } from './fields.js';
import { renderApiSession } from './mapper.js';
import { deleteApiSession, deleteExpiredSessions, findApiSession, listApiSessions } from './repo.js';

/** Sessions whose last activity is before this are expired (and read as absent). */
function liveSince(deps: Deps): number {
  return deps.now() - deps.config.sessionTimeoutSeconds * 1000;
}

/** The caller's own session: its token is shown in its own row, and only there. */
type Caller = { id: string; token: string };
const tokenFor = (caller: Caller, sessionId: string) => (sessionId === caller.id ? caller.token : undefined);

export async function listSessions(deps: Deps, query: ListQueryParams, caller: Caller): Promise<ListResult<ReturnType<typeof renderApiSession>>> {
  const q = resolveListQuery(query, apiSessionFields);
  const { rows, total } = await listApiSessions(deps.db, q, liveSince(deps));
  return {
    data: rows.map((r) => renderApiSession(r.apiSession, r.identityName ?? '', tokenFor(caller, r.apiSession.id))),
    meta: listMeta(total, q.limit, q.offset, apiSessionFields),
  };
}

export async function sessionDetail(deps: Deps, id: string, caller: Caller) {
  const row = await findApiSession(deps.db, id, liveSince(deps));
  if (!row) throw notFound('apiSession', id);
  return renderApiSession(row.apiSession, row.identityName ?? '', tokenFor(caller, row.apiSession.id));
}

/** Deletes a stored session, or ends an OIDC session of that id (`z_asid`: its tokens are refused from then on). */
export async function removeSession(deps: Deps, id: string): Promise<void> {
  if (await deleteApiSession(deps.db, id)) return;
  if (!(await endSession(deps, id))) throw notFound('apiSession', id);
}

/** Ends the caller's own session (logout); a session already gone is not an error. */
export async function logout(deps: Deps, id: string): Promise<void> {
  await deleteApiSession(deps.db, id);
}

/**
 * How often, per instance, expired sessions are swept (the controller's enforcer runs every 5 s), and how:
 * chunks of SWEEP_CHUNK rows, repeated while a chunk comes back full, at most SWEEP_MAX_CHUNKS per sweep.
 * One sweep clears 10,000 rows, so sweeping keeps up with any login rate up to 2,000 a second; a backlog
 * beyond that is worked off over the next sweeps. Each chunk is its own short write, so a sweep never
 * holds the store for long.
 */
export const SWEEP_INTERVAL_MS = 5_000;
export const SWEEP_CHUNK = 500;
export const SWEEP_MAX_CHUNKS = 20;
const lastSweep = new WeakMap<object, number>();

/**
 * The controller deletes expired sessions in a background enforcer; a serverless instance has no
 * background, so logins trigger a sweep at most every SWEEP_INTERVAL_MS per instance, after the response.
 * Expired sessions are already unusable and unlisted whether swept or not.
 */
export function sweepExpiredSessions(deps: Deps, defer: (p: Promise<unknown>) => void): void {
  const now = deps.now();
  const last = lastSweep.get(deps);
  if (last !== undefined && now - last < SWEEP_INTERVAL_MS) return;
  lastSweep.set(deps, now);
  defer(sweep(deps, liveSince(deps)));
}

async function sweep(deps: Deps, cutoff: number): Promise<number> {
  let total = 0;
  for (let chunk = 0; chunk < SWEEP_MAX_CHUNKS; chunk++) {
    const deleted = await deleteExpiredSessions(deps.db, cutoff, SWEEP_CHUNK);
    total += deleted;
    if (deleted < SWEEP_CHUNK) break;
  }
  // Their session certificates go with them (a trigger, migration 0016).
  return total;
}
