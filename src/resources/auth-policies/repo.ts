import { eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { externalJwtSigners, identities } from '../../db/schema/index.js';

/** Up to `max` ids of identities assigned to the policy (the 409 cause lists them). */
export async function identitiesUsingPolicy(db: Db, policyId: string, max = 50): Promise<string[]> {
  const rows = await db.select({ id: identities.id }).from(identities).where(eq(identities.authPolicyId, policyId)).orderBy(identities.id).limit(max);
  return rows.map((r) => r.id);
}

/** What the store's triggers (drizzle/0003) raise when a policy names a signer that does not exist. */
export const SIGNER_MISSING = 'ext_jwt_signer_missing';

/** External JWT signer ids among `ids` that do not exist. */
export async function missingExtJwtSigners(db: Db, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.select({ id: externalJwtSigners.id }).from(externalJwtSigners).where(inArray(externalJwtSigners.id, ids));
  const found = new Set(rows.map((r) => r.id));
  return ids.filter((id) => !found.has(id));
}
