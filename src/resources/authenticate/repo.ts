import { and, eq } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { identityEnabledAt } from '../../auth/repo.js';
import type { Db } from '../../db/client.js';
import { identities } from '../../db/schema/index.js';

/** Stores a login's envInfo/sdkInfo, only while the identity is enabled (as the session insert beside it). */
export function updateIdentityClientInfo(db: Db, identityId: string, info: { envInfo: string | null; sdkInfo: string | null }, now: number): BatchItem<'sqlite'> {
  return db
    .update(identities)
    .set({ ...info, updatedAt: now })
    .where(and(eq(identities.id, identityId), identityEnabledAt(identityId, now)));
}
