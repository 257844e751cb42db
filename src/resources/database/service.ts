/**
 * `/database/*` (reference model-and-policies §10.5): snapshots here, the data-integrity run in
 * src/operations/integrity.ts.
 */
import type { ServiceContext } from '../../deps.js';
import { ApiError, messageError } from '../../errors.js';
import { returnSlot, takeSlot } from './repo.js';

const SNAPSHOT = 'snapshot';
/** At most one snapshot a minute across every instance (§10.5). */
const SNAPSHOT_INTERVAL_MS = 60_000;

/** What the answer tells the operator: the file written, or the bookmark to restore to. */
export type SnapshotTaken = { path: string } | { bookmark: string; restore: string };

/**
 * `POST /database/snapshot`: what the store offers (docs/operations.md, "Snapshots"). A consistent copy
 * of the embedded database next to it (Node), a Time Travel bookmark (D1), or 409 with what the platform
 * offers instead (remote libSQL); never a success that took nothing.
 */
export async function createSnapshot(ctx: ServiceContext): Promise<SnapshotTaken> {
  const { deps } = ctx;
  const operations = deps.operations;
  if (!operations) throw messageError('SNAPSHOT_NOT_SUPPORTED', 'this runtime offers no snapshot of its store');
  const now = deps.now();
  if (!(await takeSlot(deps.db, SNAPSHOT, now, SNAPSHOT_INTERVAL_MS))) {
    throw new ApiError('RATE_LIMITED', { code: 'UNHANDLED', message: 'at most one snapshot may be taken per minute' });
  }
  const outcome = await operations.snapshot(now).catch(async (e) => {
    await returnSlot(deps.db, SNAPSHOT, now);
    throw e;
  });
  if (outcome.kind === 'unsupported') {
    await returnSlot(deps.db, SNAPSHOT, now);
    throw messageError('SNAPSHOT_NOT_SUPPORTED', outcome.reason);
  }
  if (outcome.kind === 'file') {
    deps.log.info('database snapshot written', { path: outcome.path, requestId: ctx.requestId });
    return { path: outcome.path };
  }
  deps.log.info('database snapshot bookmark', { bookmark: outcome.bookmark, requestId: ctx.requestId });
  return { bookmark: outcome.bookmark, restore: outcome.restore };
}
