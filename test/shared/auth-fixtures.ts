import { eq } from 'drizzle-orm';
import { hashPassword } from '../../src/auth/password.js';
import { atomic, type Db } from '../../src/db/client.js';
import { apiSessions, authenticators, authPolicies, identities } from '../../src/db/schema/index.js';
import { entityId, shortId } from '../../src/lib/ids.js';

/**
 * Store-level fixtures for the authentication suites: identities with password authenticators and auth
 * policies written directly, so the suites do not depend on the management CRUD endpoints. They never
 * assert. Each runtime passes its own database handle (libSQL on Node, D1 inside workerd).
 */
export interface AuthFixtures {
  db: Db;
  createUser(options: { username: string; password: string; name?: string; isAdmin?: boolean; authPolicyId?: string }): Promise<{ identityId: string; authenticatorId: string }>;
  createAuthPolicy(options: Partial<typeof authPolicies.$inferInsert>): Promise<string>;
  setDisabled(identityId: string, disabledAt: number | null, disabledUntil: number | null): Promise<void>;
  passwordHash(authenticatorId: string): Promise<string | null>;
  sessionCount(identityId: string): Promise<number>;
}

/** A name no other test (or earlier run against the same store) has used. */
export function unique(prefix: string): string {
  return `${prefix}-${shortId().toLowerCase()}`;
}

export function storeFixtures(db: Db): AuthFixtures {
  return {
    db,
    async createUser({ username, password, name, isAdmin = false, authPolicyId = 'default' }) {
      const now = Date.now();
      const identityId = shortId();
      const authenticatorId = shortId();
      const base = { createdAt: now, updatedAt: now, tags: '{}' };
      await atomic(db, [
        db.insert(identities).values({ ...base, id: identityId, name: name ?? unique('user'), isAdmin, authPolicyId }),
        db.insert(authenticators).values({ ...base, id: authenticatorId, identityId, method: 'updb', username, passwordHash: await hashPassword(password) }),
      ]);
      return { identityId, authenticatorId };
    },
    async createAuthPolicy(options) {
      const now = Date.now();
      const id = entityId();
      await db.insert(authPolicies).values({ createdAt: now, updatedAt: now, tags: '{}', name: unique('policy'), ...options, id });
      return id;
    },
    async setDisabled(identityId, disabledAt, disabledUntil) {
      await db.update(identities).set({ disabledAt, disabledUntil }).where(eq(identities.id, identityId));
    },
    async passwordHash(authenticatorId) {
      const rows = await db.select({ h: authenticators.passwordHash }).from(authenticators).where(eq(authenticators.id, authenticatorId));
      return rows[0]?.h ?? null;
    },
    async sessionCount(identityId) {
      const rows = await db.select({ id: apiSessions.id }).from(apiSessions).where(eq(apiSessions.identityId, identityId));
      return rows.length;
    },
  };
}
