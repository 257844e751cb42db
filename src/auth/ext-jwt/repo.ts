import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { authPolicies, externalJwtSigners, identities } from '../../db/schema/index.js';

export type SignerRow = typeof externalJwtSigners.$inferSelect;

/** The signer whose issuer is exactly `issuer` (unique index, bytewise). */
export async function findSignerByIssuer(db: Db, issuer: string): Promise<SignerRow | undefined> {
  const rows = await db.select().from(externalJwtSigners).where(eq(externalJwtSigners.issuer, issuer)).limit(1);
  return rows[0];
}

export async function findSigner(db: Db, id: string): Promise<SignerRow | undefined> {
  const rows = await db.select().from(externalJwtSigners).where(eq(externalJwtSigners.id, id)).limit(1);
  return rows[0];
}

/** The identity a token's claim names (by id or by externalId), with its auth policy, in one read. */
export async function findClaimedIdentity(db: Db, claim: string, byExternalId: boolean) {
  const rows = await db
    .select({ identity: identities, authPolicy: authPolicies })
    .from(identities)
    .leftJoin(authPolicies, eq(authPolicies.id, identities.authPolicyId))
    .where(byExternalId ? eq(identities.externalId, claim) : eq(identities.id, claim))
    .limit(1);
  return rows[0];
}
