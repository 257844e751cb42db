/** What the orchestrator needs from a runtime under test. */
import type { Target } from '../http.js';
import type { SqlStore } from '../seed.js';
import type { CpuProfiler } from '../profile.js';

export type RuntimeName = 'node' | 'workerd';

/** Statements the controller ran, by kind (Node only: drizzle's query logger and the client's batches). */
export interface StatementCounter {
  /**
   * The statements the controller runs while `work` runs. Nothing is counted outside it: classifying
   * every statement cost the controller ~1.4 µs of CPU per statement under load, which its floor does not pay.
   */
  during(work: () => Promise<void>): Promise<{ reads: number; writes: number }>;
}

export interface StartupFigures {
  /** From starting the server (process or in-process) to it accepting connections. */
  listenMs: number;
  /** From accepting connections to the first 2xx answer (first request initialises the app and store). */
  firstResponseMs: number;
  totalMs: number;
}

export interface RuntimeUnderTest {
  name: RuntimeName;
  /** The controller. */
  target: Target;
  /** The floor app, on the same runtime and store. Its paths start with /__floor/. */
  floorTarget: Target;
  /** The controller's store, for seeding and setup. */
  store: SqlStore;
  startup: StartupFigures;
  statements?: StatementCounter;
  /**
   * `--profile` on a runtime that does not run in the bench process: a profiler of the controller's worker
   * and one of the floor's (Node's are this process's own).
   */
  profilers?: { controller(): CpuProfiler; floor(): CpuProfiler };
  /** Describes transport and store, for the report. */
  description: string;
  close(): Promise<void>;
}

/** Classifies an SQL statement as a read, a write, or neither (PRAGMA, BEGIN ...). */
export function statementKind(sql: string): 'read' | 'write' | 'other' {
  const verb = /^\s*(?:--[^\n]*\n\s*)*(\w+)/.exec(sql)?.[1]?.toLowerCase();
  if (verb === 'select' || verb === 'with') return /\b(insert|update|delete)\b/i.test(sql) && verb === 'with' ? 'write' : 'read';
  if (verb === 'insert' || verb === 'update' || verb === 'delete' || verb === 'replace') return 'write';
  return 'other';
}

/** The bench's own `ZITI_SERVICE_PAGE_CACHE_MB`, passed on to the controller under test when set (0: no page is kept). */
export function keptPagesSetting(): { ZITI_SERVICE_PAGE_CACHE_MB?: string } {
  const mb = process.env.ZITI_SERVICE_PAGE_CACHE_MB;
  return mb === undefined || mb === '' ? {} : { ZITI_SERVICE_PAGE_CACHE_MB: mb };
}
