import { eq, sql } from 'drizzle-orm';
import { preparedPer, type Db } from '../../db/client.js';
import { authPolicies, externalJwtSigners, identities } from '../../db/schema/index.js';
import { hasVerifiedMfa } from '../repo.js';

export type SignerRow = typeof externalJwtSigners.$inferSelect;


const signerByIssuer = preparedPer((db) => db.select().from(externalJwtSigners).where(eq(externalJwtSigners.issuer, sql.placeholder('issuer'))).limit(1).prepare());
const signerById = preparedPer((db) => db.select().from(externalJwtSigners).where(eq(externalJwtSigners.id, sql.placeholder('id'))).limit(1).prepare());
const identityQuery = (db: Db, column: typeof identities.id | typeof identities.externalId) =>
  db
    // hasVerifiedMfa: a verified MFA enrolment makes the new session partial (§1.3 step 4).
    .select({ identity: identities, authPolicy: authPolicies, hasVerifiedMfa })
    .from(identities)
    .leftJoin(authPolicies, eq(authPolicies.id, identities.authPolicyId))
    .where(eq(column, sql.placeholder('claim')))
    .limit(1)
    .prepare();
const identityById = preparedPer((db) => identityQuery(db, identities.id));
const identityByExternalId = preparedPer((db) => identityQuery(db, identities.externalId));

/** The signer whose issuer is exactly `issuer` (unique index, bytewise). */
export async function findSignerByIssuer(db: Db, issuer: string): Promise<SignerRow | undefined> {
  return (await signerByIssuer(db).all({ issuer }))[0];
}

export async function findSigner(db: Db, id: string): Promise<SignerRow | undefined> {
  return (await signerById(db).all({ id }))[0];
}

/** The identity a token's claim names (by id or by externalId), with its auth policy and MFA state, in one read. */
export async function findClaimedIdentity(db: Db, claim: string, byExternalId: boolean) {
  return (await (byExternalId ? identityByExternalId : identityById)(db).all({ claim }))[0];
}
