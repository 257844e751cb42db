/**
 * The posture sweep (§6.4): sessions whose posture stopped passing are removed when they are next read
 * or listed; this removes the rest. It holds no state and each chunk is independent, so it is safe to
 * run on any number of instances at once: Node runs it every SWEEP_INTERVAL_MS, Workers on the cron
 * trigger in wrangler.toml (every minute). Worst delay before a failing session disappears without being
 * read: that interval plus one sweep.
 */
import type { Deps } from '../../deps.js';
import { postureChecksExist } from '../../posture/evaluate.js';
import { sessionsAfter } from './repo.js';
import { endFailingSessions } from './service.js';

export const SWEEP_INTERVAL_MS = 30_000;
const CHUNK = 200;

/** Sweeps every session once; returns how many were removed. */
export async function sweepFailingPosture(deps: Deps): Promise<number> {
  if (!(await postureChecksExist(deps.db))) return 0;
  let removed = 0;
  let after = '';
  for (;;) {
    const rows = await sessionsAfter(deps.db, after, CHUNK);
    if (rows.length === 0) return removed;
    removed += await endFailingSessions(deps, rows);
    after = rows[rows.length - 1].id;
  }
}
