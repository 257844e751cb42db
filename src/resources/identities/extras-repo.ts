import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { apiSessions, authenticators, authPolicies } from '../../db/schema/index.js';
import type { IdentityRow } from '../../http/session.js';
import type { IdentityExtras } from './mapper.js';

/** What the identity detail shows besides the row itself: authenticators, sessions, policy name. */
export async function loadIdentityExtras(db: Db, identity: IdentityRow): Promise<IdentityExtras> {
  const [auths, sessionRows, policyRows] = await Promise.all([
    db.select({ id: authenticators.id, method: authenticators.method, username: authenticators.username, fingerprint: authenticators.certFingerprint }).from(authenticators).where(eq(authenticators.identityId, identity.id)),
    db.select({ one: sql<number>`1` }).from(apiSessions).where(eq(apiSessions.identityId, identity.id)).limit(1),
    db.select({ name: authPolicies.name }).from(authPolicies).where(eq(authPolicies.id, identity.authPolicyId)).limit(1),
  ]);
  const summary: IdentityExtras['authenticators'] = {};
  for (const a of auths) {
    if (a.method === 'updb') summary.updb = { id: a.id, username: a.username ?? '' };
    else summary.cert = { id: a.id, fingerprint: a.fingerprint ?? '' };
  }
  return { authenticators: summary, hasApiSession: sessionRows.length > 0, isMfaEnabled: false, authPolicyName: policyRows[0]?.name ?? identity.authPolicyId, enrollment: {} };
}
