import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { operationSlots } from '../../db/schema/index.js';

/**
 * Takes the operation's slot if it last ran at least `intervalMs` ago (or never): one conditional upsert,
 * so that of concurrent requests on any instance at most one per interval wins.
 */
export async function takeSlot(db: Db, name: string, now: number, intervalMs: number): Promise<boolean> {
  const rows = await db
    .insert(operationSlots)
    .values({ name, lastAt: now })
    .onConflictDoUpdate({ target: operationSlots.name, set: { lastAt: now }, setWhere: sql`${operationSlots.lastAt} <= ${now - intervalMs}` })
    .returning({ name: operationSlots.name });
  return rows.length > 0;
}

/** Gives the slot back when the operation did nothing (still only if this request took it). */
export async function returnSlot(db: Db, name: string, takenAt: number): Promise<void> {
  await db.delete(operationSlots).where(and(eq(operationSlots.name, name), eq(operationSlots.lastAt, takenAt)));
}
