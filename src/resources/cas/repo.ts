import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { cas } from '../../db/schema/index.js';
import { caEnrollmentsCascade } from '../../enrollment/repo.js';
import type { Statement } from '../../crud/repo.js';
import type { CaRow } from './entity.js';

/** The only write that sets isVerified, and only once (409 otherwise): a conditional update. */
export async function markVerified(db: Db, id: string, now: number): Promise<boolean> {
  const rows = await db
    .update(cas)
    .set({ isVerified: true, updatedAt: now })
    .where(and(eq(cas.id, id), eq(cas.isVerified, false)))
    .returning({ id: cas.id });
  return rows.length > 0;
}


export function caCascade(db: Db, id: string): Statement[] {
  return [caEnrollmentsCascade(db, id)];
}
