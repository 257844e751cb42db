import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { configs } from '../../db/schema/index.js';

/** Up to `max` ids of configs of the type (the 409 cause lists them). */
export async function configsOfType(db: Db, configTypeId: string, max = 50): Promise<string[]> {
  const rows = await db.select({ id: configs.id }).from(configs).where(eq(configs.configTypeId, configTypeId)).orderBy(configs.id).limit(max);
  return rows.map((r) => r.id);
}
