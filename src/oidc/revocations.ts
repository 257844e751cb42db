/**
 * The deny-list that lets access tokens be checked without a store read and still be revoked (reference
 * oidc.md §8, §12.4; ADR 0013). Every instance (Node process, Workers isolate) keeps a copy of
 * `oidc_revocations` and refreshes it incrementally (rows after the last `seq` seen):
 *
 * - a copy older than `pollMs / 2` is refreshed in the background, after the response;
 * - a copy older than `pollMs` is refreshed before the request is answered.
 *
 * So a revocation written by any instance stops a token on every instance within `pollMs` (default 5 s)
 * plus one store round trip, and under steady traffic no request waits for the store. Revocations written
 * by this instance apply here at once. Reads go to the primary (D1 replicas may lag).
 */
import type { Deps } from '../deps.js';
import { FOREVER, pruneRevocations, readRevocations, type RevocationKind, type RevocationRow } from './repo.js';

/** One refresh reads at most this many rows per statement (a backlog takes several). */
const PAGE = 2_000;
/** Pruning of rows no token can need any more runs at most this often per instance. */
const PRUNE_INTERVAL_MS = 60 * 60_000;

interface Entry {
  notBefore: number;
  createdAt: number;
}

interface DenyList {
  entries: Map<string, Entry>;
  lastSeq: number;
  /** When the copy was last known complete (deps clock); -Infinity before the first load. */
  freshAt: number;
  refreshing?: Promise<void>;
  prunedAt: number;
}

const lists = new WeakMap<Deps, DenyList>();

function listOf(deps: Deps): DenyList {
  let l = lists.get(deps);
  if (!l) lists.set(deps, (l = { entries: new Map(), lastSeq: 0, freshAt: Number.NEGATIVE_INFINITY, prunedAt: Number.NEGATIVE_INFINITY }));
  return l;
}

/** How long a revocation matters: until every token issued before it has expired. */
export function revocationHorizonMs(deps: Deps): number {
  const { accessTokenSeconds, idTokenSeconds, refreshTokenSeconds } = deps.config.oidc;
  return Math.max(accessTokenSeconds, idTokenSeconds, refreshTokenSeconds) * 1000 + 60_000;
}

function keyOf(kind: RevocationKind, subject: string): string {
  return `${kind}\u0000${subject}`;
}

function apply(l: DenyList, row: Pick<RevocationRow, 'kind' | 'subject' | 'notBefore' | 'createdAt'>): void {
  const key = keyOf(row.kind, row.subject);
  const had = l.entries.get(key);
  if (!had || had.notBefore < row.notBefore) l.entries.set(key, { notBefore: row.notBefore, createdAt: Math.max(row.createdAt, had?.createdAt ?? 0) });
}

async function refresh(deps: Deps, l: DenyList): Promise<void> {
  const started = deps.now();
  const horizon = started - revocationHorizonMs(deps);
  const db = deps.primaryDb ?? deps.db;
  for (;;) {
    const rows = await readRevocations(db, l.lastSeq, horizon, PAGE);
    for (const row of rows) {
      apply(l, row);
      l.lastSeq = Math.max(l.lastSeq, row.seq);
    }
    if (rows.length < PAGE) break;
  }
  // Entries no token can need any more are forgotten here too.
  for (const [key, e] of l.entries) if (e.createdAt < horizon) l.entries.delete(key);
  l.freshAt = started;
}

function startRefresh(deps: Deps, l: DenyList): Promise<void> {
  l.refreshing ??= refresh(deps, l).finally(() => {
    l.refreshing = undefined;
  });
  return l.refreshing;
}

/**
 * The instance's copy, fresh within the bound: awaited when older than `pollMs`, refreshed in the
 * background (through `defer`) when older than half of it.
 */
export async function currentDenyList(deps: Deps, defer: (p: Promise<unknown>) => void): Promise<DenyList> {
  const l = listOf(deps);
  const age = deps.now() - l.freshAt;
  const poll = deps.config.oidc.revocationPollMs;
  if (age >= poll) await startRefresh(deps, l);
  else if (age >= poll / 2 && !l.refreshing) defer(startRefresh(deps, l));
  if (deps.now() - l.prunedAt >= PRUNE_INTERVAL_MS) {
    l.prunedAt = deps.now();
    defer(pruneRevocations(deps.primaryDb ?? deps.db, deps.now() - revocationHorizonMs(deps)));
  }
  return l;
}

/** What a token is checked against: its subject, authenticator, API session, id and issue time. */
export interface RevocableToken {
  sub: string;
  iat: number;
  /** Issue time in milliseconds (access tokens); `iat` (whole seconds) otherwise. */
  z_iatms?: number;
  jti?: string;
  z_asid?: string;
  z_authid?: string;
}

/**
 * Whether the copy stops this token: its identity was disabled, demoted or deleted after it was issued
 * (to the millisecond, `z_iatms`; a token with only `iat` counts as issued at the start of its second), its
 * authenticator was deleted, its API session ended, or the token itself was revoked.
 */
export function isRevoked(l: DenyList, t: RevocableToken): boolean {
  if (l.entries.size === 0) return false;
  const identity = l.entries.get(keyOf('identity', t.sub));
  if (identity && (typeof t.z_iatms === 'number' ? t.z_iatms : t.iat * 1000) <= identity.notBefore) return true;
  if (t.z_asid && l.entries.has(keyOf('session', t.z_asid))) return true;
  if (t.z_authid && l.entries.has(keyOf('authenticator', t.z_authid))) return true;
  if (t.jti && l.entries.has(keyOf('token', t.jti))) return true;
  return false;
}

/** Applies a revocation this instance wrote to its own copy at once (others see it within the bound). */
export function noteRevocation(deps: Deps, kind: RevocationKind, subject: string, notBefore = FOREVER): void {
  apply(listOf(deps), { kind, subject, notBefore, createdAt: deps.now() });
}
