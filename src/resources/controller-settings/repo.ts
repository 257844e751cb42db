import { eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { controllerSettings } from '../../db/schema/index.js';
import type { ControllerSettingRow } from './entity.js';

/** Inserts a controller's settings unless the id is taken; true when inserted. */
export async function insertSetting(db: Db, row: ControllerSettingRow): Promise<boolean> {
  const rows = await db.insert(controllerSettings).values(row).onConflictDoNothing().returning({ id: controllerSettings.id });
  return rows.length > 0;
}

/** The rows of these ids (global and one controller: one read). */
export async function findSettings(db: Db, ids: string[]): Promise<ControllerSettingRow[]> {
  return db.select().from(controllerSettings).where(inArray(controllerSettings.id, ids));
}

export async function findSetting(db: Db, id: string): Promise<ControllerSettingRow | undefined> {
  const rows = await db.select().from(controllerSettings).where(eq(controllerSettings.id, id)).limit(1);
  return rows[0];
}
