/**
 * Periodic work, the same on both runtimes: Node runs it on a timer (src/node.ts), Workers on the cron
 * trigger of wrangler.toml (src/worker.ts `scheduled`). Every task is safe to run on several instances at
 * once and keeps no state between runs.
 */
import type { Deps } from './deps.js';
import { sweepFailingPosture, SWEEP_INTERVAL_MS } from './resources/sessions/sweep.js';

export const MAINTENANCE_INTERVAL_MS = SWEEP_INTERVAL_MS;

export async function runMaintenance(deps: Deps): Promise<void> {
  try {
    const removed = await sweepFailingPosture(deps);
    if (removed > 0) deps.log.info('sessions removed: posture no longer passes', { removed });
  } catch (e) {
    deps.log.warn('maintenance failed', { error: e instanceof Error ? e.message : String(e) });
  }
}
