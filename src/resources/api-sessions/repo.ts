import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { apiSessions } from '../../db/schema/index.js';

export async function deleteApiSession(db: Db, id: string): Promise<void> {
  await db.delete(apiSessions).where(eq(apiSessions.id, id));
}
