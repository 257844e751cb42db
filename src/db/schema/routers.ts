import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
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
  // The fingerprint of the router's current client certificate names it at `/enroll/extend/router`.
  (t) => [uniqueIndex('edge_routers_name_uq').on(t.name), uniqueIndex('edge_routers_fingerprint_uq').on(t.fingerprint)],
);

/** Transit (fabric) routers, `/transit-routers` and `/routers` (§9.3). */
export const transitRouters = sqliteTable(
  'transit_routers',
  {
    ...baseColumns(),
    name: text('name').notNull(),
    cost: integer('cost').notNull().default(0),
    noTraversal: integer('no_traversal', { mode: 'boolean' }).notNull().default(false),
    disabled: integer('disabled', { mode: 'boolean' }).notNull().default(false),
    isVerified: integer('is_verified', { mode: 'boolean' }).notNull().default(false),
    fingerprint: text('fingerprint'),
  },
  (t) => [uniqueIndex('transit_routers_name_uq').on(t.name), uniqueIndex('transit_routers_fingerprint_uq').on(t.fingerprint)],
);

/** Terminators (§9.4): where a service is hosted, on an edge or transit router. */
export const terminators = sqliteTable(
  'terminators',
  {
    ...baseColumns(),
    serviceId: text('service_id').notNull(),
    routerId: text('router_id').notNull(),
    binding: text('binding').notNull(),
    address: text('address').notNull(),
    identity: text('identity').notNull().default(''),
    /** Create-only and never rendered. */
    identitySecret: text('identity_secret'),
    cost: integer('cost').notNull().default(0),
    precedence: text('precedence').notNull().default('default'),
  },
  (t) => [index('terminators_service_idx').on(t.serviceId), index('terminators_router_idx').on(t.routerId)],
);
