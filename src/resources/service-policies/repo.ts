import { sql } from 'drizzle-orm';
import { qualified as q } from '../../crud/repo.js';
import { servicePolicies } from '../../db/schema/index.js';

/** A service policy's `type` as the controller's filters see it: a number, 1 for Dial and 2 for Bind (§1.6). */
export const policyTypeNumber = sql<number>`(CASE ${q(servicePolicies.type)} WHEN 'Dial' THEN 1 WHEN 'Bind' THEN 2 ELSE 0 END)`;
