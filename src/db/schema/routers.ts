import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { baseColumns } from './common.js';

/**
 * Edge routers (reference model-and-policies §9.1). Live state (online, sync status, versions) has no
 * source here: routers attach over a control channel this controller does not serve.
 */
export const edgeRouters = sqliteTable(
  'edge_routers',
  {
    ...baseColumns(),
    name: text('name').notNull(),
    roleAttributes: text('role_attributes').notNull().default('[]'),
    cost: integer('cost').notNull().default(0),
    noTraversal: integer('no_traversal', { mode: 'boolean' }).notNull().default(false),
    disabled: integer('disabled', { mode: 'boolean' }).notNull().default(false),
    isTunnelerEnabled: integer('is_tunneler_enabled', { mode: 'boolean' }).notNull().default(false),
    isVerified: integer('is_verified', { mode: 'boolean' }).notNull().default(false),
    fingerprint: text('fingerprint'),
    certPem: text('cert_pem'),
    appData: text('app_data').notNull().default('{}'),
  },
  (t) => [uniqueIndex('edge_routers_name_uq').on(t.name)],
);
