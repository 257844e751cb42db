import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Versions of what list filters can observe in a table, for exact list totals kept between requests
 * (src/db/list-page.ts, docs/adr/0014-identity-list.md). Triggers on the table set a row's `version` to a
 * new random 64-bit value in the same transaction as every write that may change a filtered count, so a
 * total counted at one version is the count of any later snapshot showing the same version — on every
 * connection, process and isolate, and after a restore (a random value does not come back).
 *
 * Rows (drizzle/0015_list_versions.sql):
 * - `identities`: inserts, deletes, and changes of every filterable identity column but `updated_at`;
 * - `identities.updated_at`: changes of `updated_at` (logins store client info and move it; only
 *   filters naming `updatedAt` depend on this one).
 *
 * A missing row reads as NULL: no total is kept then. A migration that rebuilds a watched table drops
 * its triggers and must create them again (test/shared/list-versions.suite.ts checks them).
 */
export const listVersions = sqliteTable('list_versions', {
  name: text('name').primaryKey(),
  version: integer('version').notNull(),
});
