import type { Deps } from '../../deps.js';
import type { ListSummaryCounts } from '../../generated/management-types.js';
import { summaryCounts } from './repo.js';

/** `GET /summary` (reference §10.4): one count per kind of record, system and built-in records included. */
export function summary(deps: Deps): Promise<ListSummaryCounts> {
  return summaryCounts(deps.db);
}
