import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { identities } from '../../db/schema/index.js';

/** Up to `max` ids of identities assigned to the policy (the 409 cause lists them). */
export async function identitiesUsingPolicy(db: Db, policyId: string, max = 50): Promise<string[]> {
  const rows = await db.select({ id: identities.id }).from(identities).where(eq(identities.authPolicyId, policyId)).orderBy(identities.id).limit(max);
  return rows.map((r) => r.id);
}

/**
 * External JWT signer ids among `ids` that do not exist. There is no signer table yet, so every id is
 * unknown; the external-JWT-signer resource replaces this with a lookup.
 */
export async function missingExtJwtSigners(_db: Db, ids: string[]): Promise<string[]> {
  return ids;
}
