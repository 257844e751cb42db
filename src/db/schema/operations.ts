import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The data-integrity run (docs/operations.md, "Data integrity"): one row, id `current`, so that at most
 * one check or fix runs at a time across every instance sharing the store. Starting a run is one
 * conditional upsert whose row count decides; the run is carried forward in slices by whichever
 * instance holds the lease (`lease_token` until `lease_until`), each slice committing its results and
 * the cursor where the next one starts.
 */
export const integrityRuns = sqliteTable('integrity_runs', {
  id: text('id').primaryKey(),
  runId: text('run_id').notNull(),
  mode: text('mode', { enum: ['check', 'fix'] }).notNull(),
  inProgress: integer('in_progress', { mode: 'boolean' }).notNull(),
  startedAt: integer('started_at').notNull(),
  endedAt: integer('ended_at'),
  /** Why the run stopped early; '' when it did not. */
  error: text('error').notNull().default(''),
  /** Results stored so far (at most 1,000). */
  resultCount: integer('result_count').notNull().default(0),
  /** More differences were found than are kept. */
  tooManyErrors: integer('too_many_errors', { mode: 'boolean' }).notNull().default(false),
  /** Where the run carries on: JSON `{"checker": <index>, "cursor": <checker's cursor or null>}`. */
  cursor: text('cursor').notNull().default('{"checker":0,"cursor":null}'),
  /** A random value per slice runner: only the holder commits slices. */
  leaseToken: text('lease_token'),
  leaseUntil: integer('lease_until').notNull().default(0),
});

/** What the current (or last) run found, in the order found; other runs' rows are deleted when a run starts. */
export const integrityResults = sqliteTable(
  'integrity_results',
  { runId: text('run_id').notNull(), seq: integer('seq').notNull(), description: text('description').notNull(), fixed: integer('fixed', { mode: 'boolean' }).notNull() },
  (t) => [primaryKey({ columns: [t.runId, t.seq] })],
);

/**
 * Operations rate-limited across instances (`POST /database/snapshot`: one a minute): when each last
 * ran. Taking the slot is one conditional upsert whose row count decides.
 */
export const operationSlots = sqliteTable('operation_slots', { name: text('name').primaryKey(), lastAt: integer('last_at').notNull() });
