import type { Deps } from '../../deps.js';
import type { ListSummaryCounts } from '../../generated/management-types.js';
import { BUILT_IN_POSTURE_CHECK_TYPES } from '../posture-check-types/service.js';
import { summaryCounts } from './repo.js';

/** `GET /summary` (reference §10.4): one count per kind of record, system and built-in records included. */
export async function summary(deps: Deps): Promise<ListSummaryCounts> {
  // The posture check types are fixed content, not rows.
  return { ...(await summaryCounts(deps.db)), postureCheckTypes: BUILT_IN_POSTURE_CHECK_TYPES };
}
