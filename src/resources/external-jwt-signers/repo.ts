import { eq, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { authPolicies, externalJwtSigners } from '../../db/schema/index.js';

/** What the store's trigger (drizzle/0003) raises when a referenced signer is deleted. */
export const SIGNER_REFERENCED = 'ext_jwt_signer_referenced';

/** Up to `max` ids of auth policies that name the signer, as allowed or as required secondary (§8.1). */
export async function policiesUsingSigner(db: Db, signerId: string, max = 50): Promise<string[]> {
  const rows = await db
    .select({ id: authPolicies.id })
    .from(authPolicies)
    .where(
      or(
        eq(authPolicies.requireExtJwtSigner, signerId),
        sql`exists (select 1 from json_each(${authPolicies.extJwtAllowedSigners}) where json_each.value = ${signerId})`,
      ),
    )
    .orderBy(authPolicies.id)
    .limit(max);
  return rows.map((r) => r.id);
}


/** The client list's own restriction: enabled signers only (§8.4). */
export function enabledSignersWhere() {
  return eq(externalJwtSigners.enabled, true);
}
