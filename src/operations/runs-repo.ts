/**
 * The state of the data-integrity run, kept in the store so that every instance sees the same run
 * (src/db/schema/operations.ts): who may start one, who carries it on, and what it found so far.
 */
import { and, asc, eq, lte, sql } from 'drizzle-orm';
import { qualified as q } from '../crud/repo.js';
import type { Db, Statement } from '../db/client.js';
import { integrityResults, integrityRuns } from '../db/schema/index.js';

export type IntegrityRunRow = typeof integrityRuns.$inferSelect;
export type IntegrityMode = IntegrityRunRow['mode'];

/** The one row of `integrity_runs`. */
const RUN = 'current';
const START = JSON.stringify({ checker: 0, cursor: null });

/** Who holds the run: its id and the lease token of the instance carrying it. */
export interface RunLease {
  runId: string;
  token: string;
}

async function batch(db: Db, statements: Statement[]): Promise<unknown[]> {
  return (db as unknown as { batch(items: Statement[]): Promise<unknown[]> }).batch(statements);
}

const held = (lease: RunLease) => and(eq(integrityRuns.id, RUN), eq(integrityRuns.runId, lease.runId), eq(integrityRuns.leaseToken, lease.token));

/**
 * Starts a run unless one is in progress (one conditional upsert; its row count decides between
 * concurrent starts on any instance), and forgets the results of earlier runs in the same batch.
 */
export async function claimRun(db: Db, lease: RunLease, mode: IntegrityMode, now: number, leaseUntil: number): Promise<boolean> {
  const values = { runId: lease.runId, mode, inProgress: true, startedAt: now, endedAt: null, error: '', resultCount: 0, tooManyErrors: false, cursor: START, leaseToken: lease.token, leaseUntil };
  const claim = db
    .insert(integrityRuns)
    .values({ id: RUN, ...values })
    .onConflictDoUpdate({ target: integrityRuns.id, set: values, setWhere: sql`${integrityRuns.inProgress} = 0` })
    .returning({ runId: integrityRuns.runId });
  const forget = db.delete(integrityResults).where(sql`${q(integrityResults.runId)} <> ${lease.runId} AND EXISTS (SELECT 1 FROM ${integrityRuns} WHERE ${q(integrityRuns.id)} = ${RUN} AND ${q(integrityRuns.runId)} = ${lease.runId})`);
  const [claimed] = await batch(db, [claim, forget]);
  return Array.isArray(claimed) && claimed.length > 0;
}

/**
 * Takes over a run in progress whose lease has expired (the instance carrying it stopped, or its time
 * there ran out): the run, or undefined when there is none to take.
 */
export async function takeStalledRun(db: Db, token: string, now: number, leaseUntil: number): Promise<IntegrityRunRow | undefined> {
  const rows = await db
    .update(integrityRuns)
    .set({ leaseToken: token, leaseUntil })
    .where(and(eq(integrityRuns.id, RUN), eq(integrityRuns.inProgress, true), lte(integrityRuns.leaseUntil, now)))
    .returning();
  return rows[0];
}

export async function loadRun(db: Db): Promise<IntegrityRunRow | undefined> {
  const rows = await db.select().from(integrityRuns).where(eq(integrityRuns.id, RUN)).limit(1);
  return rows[0];
}

export async function runResults(db: Db, runId: string): Promise<{ description: string; fixed: boolean }[]> {
  return db.select({ description: integrityResults.description, fixed: integrityResults.fixed }).from(integrityResults).where(eq(integrityResults.runId, runId)).orderBy(asc(integrityResults.seq));
}

export interface SliceCommit {
  /** Where the run carries on (JSON). */
  cursor: string;
  findings: string[];
  /** Sequence number of the first finding: the results stored before it. */
  firstSeq: number;
  fixed: boolean;
  tooManyErrors: boolean;
  leaseUntil: number;
  /** Repairs of the slice (fix runs), in the same batch as its progress. */
  repairs: Statement[];
}

/**
 * Commits a slice in one batch: the run's progress and lease, its results, and its repairs. False when
 * the lease was lost (another instance took the run over): nothing of the run is written then, and the
 * repairs, which are idempotent, change nothing that the new holder would not repair too.
 */
export async function commitSlice(db: Db, lease: RunLease, c: SliceCommit): Promise<boolean> {
  const progress = db
    .update(integrityRuns)
    .set({ cursor: c.cursor, resultCount: c.firstSeq + c.findings.length, tooManyErrors: c.tooManyErrors, leaseUntil: c.leaseUntil })
    .where(held(lease))
    .returning({ runId: integrityRuns.runId });
  const statements: Statement[] = [progress];
  if (c.findings.length > 0) {
    // One statement whatever the number of results: they travel as one JSON parameter.
    statements.push(
      db
        .insert(integrityResults)
        .select(
          sql`SELECT ${lease.runId}, ${c.firstSeq} + zf.key, zf.value, ${c.fixed ? 1 : 0} FROM json_each(${JSON.stringify(c.findings)}) AS zf WHERE EXISTS (SELECT 1 FROM ${integrityRuns} WHERE ${q(integrityRuns.id)} = ${RUN} AND ${q(integrityRuns.runId)} = ${lease.runId} AND ${q(integrityRuns.leaseToken)} = ${lease.token})`,
        ),
    );
  }
  const [committed] = await batch(db, [...statements, ...c.repairs]);
  return Array.isArray(committed) && committed.length > 0;
}

/** Ends the run (with the error that stopped it, if any). */
export async function finishRun(db: Db, lease: RunLease, now: number, error = ''): Promise<void> {
  await db.update(integrityRuns).set({ inProgress: false, endedAt: now, error, leaseToken: null, leaseUntil: 0 }).where(held(lease));
}

/** Gives the run back (its time here is up): the next instance to look carries it on at once. */
export async function releaseRun(db: Db, lease: RunLease): Promise<void> {
  await db.update(integrityRuns).set({ leaseUntil: 0 }).where(held(lease));
}
