import type { Deps } from '../../deps.js';
import { notFound } from '../../http/errors.js';
import { listMeta, resolveListQuery, type ListMeta } from '../../http/list-query.js';
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

export async function listSessions(deps: Deps, query: Record<string, string | undefined>, caller: Caller): Promise<{ data: unknown[]; meta: ListMeta }> {
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

export async function removeSession(deps: Deps, id: string): Promise<void> {
  if (!(await deleteApiSession(deps.db, id))) throw notFound('apiSession', id);
}

/** How often, per instance, expired sessions are swept, and how many per sweep. */
export const SWEEP_INTERVAL_MS = 60_000;
export const SWEEP_BATCH = 500;
const lastSweep = new WeakMap<object, number>();

/**
 * The controller deletes expired sessions in a background enforcer; a serverless instance has no
 * background, so logins trigger a bounded sweep at most once a minute per instance, after the response.
 * Expired sessions are already unusable and unlisted whether swept or not.
 */
export function sweepExpiredSessions(deps: Deps, defer: (p: Promise<unknown>) => void): void {
  const now = deps.now();
  const last = lastSweep.get(deps);
  if (last !== undefined && now - last < SWEEP_INTERVAL_MS) return;
  lastSweep.set(deps, now);
  defer(deleteExpiredSessions(deps.db, liveSince(deps), SWEEP_BATCH));
}
