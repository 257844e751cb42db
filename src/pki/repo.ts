import { eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { pkiMaterial } from '../db/schema/pki.js';

export type PkiRow = typeof pkiMaterial.$inferSelect;

/** The root, signer and server rows by name (absent ones missing). */
export async function readPkiRows(db: Db): Promise<Record<string, PkiRow | undefined>> {
  const rows = await db.select().from(pkiMaterial).where(inArray(pkiMaterial.name, ['root', 'signer', 'server']));
  return Object.fromEntries(rows.map((r) => [r.name, r]));
}

/** Inserts the rows where none of that name exists: the first writer of a concurrent first start wins. */
export async function insertPkiRowsIfAbsent(db: Db, rows: PkiRow[]): Promise<void> {
  await db.insert(pkiMaterial).values(rows).onConflictDoNothing();
}

export async function replaceServerRow(db: Db, row: Omit<PkiRow, 'name'>): Promise<void> {
  await db.update(pkiMaterial).set(row).where(eq(pkiMaterial.name, 'server'));
}
