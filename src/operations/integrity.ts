/**
 * The data-integrity engine (reference model-and-policies §10.5; docs/operations.md, "Data integrity";
 * docs/adr/0012-operations-integrity-and-snapshots.md).
 *
 * A run goes through the checkers of `checkers-repo.ts` in order, one slice at a time. Each slice is
 * committed in one atomic batch: its results, the cursor where the run carries on and, for a fix run,
 * its repairs. The run's state lives in the store, so:
 * - at most one run exists across every instance (starting one is a conditional write; a second start
 *   while it runs is 429 `RATE_LIMITED`);
 * - any instance answers `GET /database/data-integrity-results`;
 * - the instance carrying the run holds a lease; when it stops (a process killed, a Worker whose
 *   background time ran out), the lease expires or is given back, and the next request that looks at the
 *   run (results, or a start refused with 429) carries it on from its cursor.
 * On Node a run goes to its end in the background of the request that started it; on Workers each
 * request carries it forward for at most `backgroundBudgetMs` inside `waitUntil`.
 */
import { affectedIdentities, markServicesChanged } from '../policy/service-updates-repo.js';
import type { Deps, ServiceContext } from '../deps.js';
import { ApiError } from '../errors.js';
import type { DataIntegrityCheckDetails } from '../generated/management-types.js';
import { entityId } from '../lib/ids.js';
import { readJson } from '../lib/json.js';
import { iso } from '../lib/time.js';
import { CHECKERS } from './checkers-repo.js';
import { claimRun, commitSlice, finishRun, loadRun, releaseRun, runResults, takeStalledRun, type IntegrityMode, type RunLease } from './runs-repo.js';

/** At most this many results are kept (reference §10.5); `tooManyErrors` says when more were found. */
export const MAX_RESULTS = 1000;
/** How long a holder may go without committing a slice before another instance may take the run over. */
const LEASE_MS = 60_000;
/** Timestamps of a run that has not started or ended: Go's zero time, as the controller renders it. */
const ZERO_TIME = '0001-01-01T00:00:00.000Z';

interface Position {
  checker: number;
  cursor: string | null;
}

interface Carry extends RunLease {
  mode: IntegrityMode;
  position: Position;
  resultCount: number;
  tooManyErrors: boolean;
}

/**
 * Lets other work run between slices. The embedded store's driver runs statements synchronously on the
 * event loop, so without a real turn of the loop (a resolved promise is not one) a run would hold every
 * request of the process until it ended.
 */
const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function rateLimited(): ApiError {
  return new ApiError('RATE_LIMITED', { code: 'UNHANDLED', message: 'a data integrity check or fix is already running' });
}

/** When the work started now must stop to fit the runtime's background time; Infinity on Node. */
function deadline(deps: Deps): number {
  const budget = deps.operations?.backgroundBudgetMs;
  return budget === undefined ? Infinity : Date.now() + budget;
}

/**
 * `POST /database/check-data-integrity` and `fix-data-integrity`: starts a run in the background, or
 * refuses with 429 while one runs anywhere (and carries that one on if its holder stopped).
 */
export async function startIntegrityRun(ctx: ServiceContext, mode: IntegrityMode): Promise<void> {
  const { deps } = ctx;
  const now = deps.now();
  const lease: RunLease = { runId: entityId(), token: entityId() };
  if (!(await claimRun(deps.db, lease, mode, now, now + LEASE_MS))) {
    await carryStalledRun(ctx);
    throw rateLimited();
  }
  deps.log.info('data integrity run started', { runId: lease.runId, mode, requestId: ctx.requestId });
  ctx.defer(carry(deps, { ...lease, mode, position: { checker: 0, cursor: null }, resultCount: 0, tooManyErrors: false }, deadline(deps)));
}

/** Carries on a run whose holder stopped, in the background of this request. */
async function carryStalledRun(ctx: ServiceContext): Promise<void> {
  const { deps } = ctx;
  const now = deps.now();
  const token = entityId();
  const run = await takeStalledRun(deps.db, token, now, now + LEASE_MS);
  if (!run) return;
  deps.log.info('data integrity run carried on', { runId: run.runId, mode: run.mode, requestId: ctx.requestId });
  const position = readJson<Position>(run.cursor, { checker: 0, cursor: null });
  ctx.defer(carry(deps, { runId: run.runId, token, mode: run.mode, position, resultCount: run.resultCount, tooManyErrors: run.tooManyErrors }, deadline(deps)));
}

/** Goes through the checkers from the run's position until the end, the deadline, or a lost lease. */
async function carry(deps: Deps, run: Carry, until: number): Promise<void> {
  const started = Date.now();
  let { checker, cursor } = run.position;
  let { resultCount, tooManyErrors } = run;
  let slices = 0;
  try {
    while (checker < CHECKERS.length) {
      // At least one slice per carry, so that every request moves the run forward.
      if (slices > 0 && Date.now() >= until) {
        await releaseRun(deps.db, run);
        deps.log.info('data integrity run paused', { runId: run.runId, mode: run.mode, slices, ms: Date.now() - started });
        return;
      }
      slices += 1;
      await nextTurn();
      const room = Math.max(0, MAX_RESULTS - resultCount);
      const slice = await CHECKERS[checker].slice(deps.db, cursor, room);
      if (slice.next === null) {
        checker += 1;
        cursor = null;
      } else {
        cursor = slice.next;
      }
      const found = slice.findings.length > 0 || slice.more;
      tooManyErrors ||= slice.more;
      // A repair may change what any identity's service list shows: every identity's stamp moves with it
      // (service-updates, and the kept service pages that trust the stamp).
      const repairs = run.mode === 'fix' && found && slice.fix.length > 0 ? [...slice.fix, markServicesChanged(deps.db, deps.now(), affectedIdentities.all())] : [];
      const committed = await commitSlice(deps.db, run, {
        cursor: JSON.stringify({ checker, cursor }),
        findings: slice.findings,
        firstSeq: resultCount,
        fixed: repairs.length > 0,
        tooManyErrors,
        leaseUntil: deps.now() + LEASE_MS,
        repairs,
      });
      // Another instance took the run over: it carries on from the last committed slice.
      if (!committed) return;
      resultCount += slice.findings.length;
    }
    await finishRun(deps.db, run, deps.now());
    deps.log.info('data integrity run finished', { runId: run.runId, mode: run.mode, results: resultCount, tooManyErrors, ms: Date.now() - started });
  } catch (e) {
    deps.log.error('data integrity run failed', { runId: run.runId, mode: run.mode, checker: CHECKERS[checker]?.name, error: String(e) });
    await finishRun(deps.db, run, deps.now(), `the ${CHECKERS[checker]?.name ?? ''} check failed; see the controller log (run ${run.runId})`).catch(() => undefined);
  }
}

/**
 * `GET /database/data-integrity-results`: the current or last run, with at most 1,000 results. Looking
 * at a run whose holder stopped carries it on.
 */
export async function integrityResults(ctx: ServiceContext): Promise<{ data: DataIntegrityCheckDetails; total: number }> {
  await carryStalledRun(ctx);
  const run = await loadRun(ctx.deps.db);
  if (!run) return { data: { inProgress: false, fixingErrors: false, tooManyErrors: false, startTime: ZERO_TIME, endTime: ZERO_TIME, error: '', results: [] }, total: 0 };
  const results = await runResults(ctx.deps.db, run.runId);
  return {
    data: {
      inProgress: run.inProgress,
      fixingErrors: run.mode === 'fix',
      tooManyErrors: run.tooManyErrors,
      startTime: iso(run.startedAt),
      endTime: iso(run.endedAt) ?? ZERO_TIME,
      error: run.error,
      results,
    },
    total: results.length,
  };
}
