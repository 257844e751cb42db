import { eq } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../../db/client.js';
import { apiSessions, identities } from '../../db/schema/index.js';
import type { ApiSessionRow } from '../../db/schema/rows.js';

export function insertApiSession(db: Db, row: ApiSessionRow): BatchItem<'sqlite'> {
  return db.insert(apiSessions).values(row);
}

export function updateIdentityClientInfo(db: Db, identityId: string, info: { envInfo: string | null; sdkInfo: string | null }, now: number): BatchItem<'sqlite'> {
  return db.update(identities).set({ ...info, updatedAt: now }).where(eq(identities.id, identityId));
}
