import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { baseColumns } from './schema/common.js';

/**
 * The view `all_routers` (drizzle/0019_router_list.sql), declared for reading: every router as
 * `/transit-routers` and `/routers` list it, transit routers and edge routers alike (reference
 * model-and-policies §9.3). An edge router there is a router of another kind (`isBase`), shown verified
 * and changed only through `/edge-routers`. It lives outside src/db/schema so that drizzle-kit, which
 * generates tables from that folder, never makes it a table.
 */
export const allRouters = sqliteTable('all_routers', {
  ...baseColumns(),
  name: text('name').notNull(),
  cost: integer('cost').notNull(),
  noTraversal: integer('no_traversal', { mode: 'boolean' }).notNull(),
  disabled: integer('disabled', { mode: 'boolean' }).notNull(),
  isVerified: integer('is_verified', { mode: 'boolean' }).notNull(),
  fingerprint: text('fingerprint'),
  isBase: integer('is_base', { mode: 'boolean' }).notNull(),
});

/** What a router-name trigger raises when a name is taken by a router of the other kind. */
export const ROUTER_NAME_TAKEN = 'router_name_taken';
