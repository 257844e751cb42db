import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';

/** The cheapest statement that proves the store answers: no table, no lock. */
export async function pingStore(db: Db): Promise<void> {
  await db.run(sql`select 1`);
}
