import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { baseColumns } from './common.js';

/** Role lists are sorted JSON sets of `#attr` / `@id` strings (reference model-and-policies §3.1). */
export const servicePolicies = sqliteTable(
  'service_policies',
  {
    ...baseColumns(),
    name: text('name').notNull(),
    type: text('type', { enum: ['Dial', 'Bind'] }).notNull(),
    semantic: text('semantic', { enum: ['AllOf', 'AnyOf'] }).notNull().default('AllOf'),
    identityRoles: text('identity_roles').notNull().default('[]'),
    serviceRoles: text('service_roles').notNull().default('[]'),
    postureCheckRoles: text('posture_check_roles').notNull().default('[]'),
  },
  (t) => [uniqueIndex('service_policies_name_uq').on(t.name)],
);

export const edgeRouterPolicies = sqliteTable(
  'edge_router_policies',
  {
    ...baseColumns(),
    name: text('name').notNull(),
    semantic: text('semantic', { enum: ['AllOf', 'AnyOf'] }).notNull().default('AllOf'),
    identityRoles: text('identity_roles').notNull().default('[]'),
    edgeRouterRoles: text('edge_router_roles').notNull().default('[]'),
  },
  (t) => [uniqueIndex('edge_router_policies_name_uq').on(t.name)],
);

export const serviceEdgeRouterPolicies = sqliteTable(
  'service_edge_router_policies',
  {
    ...baseColumns(),
    name: text('name').notNull(),
    semantic: text('semantic', { enum: ['AllOf', 'AnyOf'] }).notNull().default('AllOf'),
    serviceRoles: text('service_roles').notNull().default('[]'),
    edgeRouterRoles: text('edge_router_roles').notNull().default('[]'),
  },
  (t) => [uniqueIndex('service_edge_router_policies_name_uq').on(t.name)],
);

/**
 * Which entities each policy matches, kept exact in the same batch as every write that changes a match
 * (docs/adr/0006-policy-links.md). `role` is the matched entity's kind (`identity`, `service`, `router`,
 * and `postureCheck` for a service policy's posture-check roles);
 * `policyType` is `dial` / `bind` for service policies, `erp` / `serp` for the router policies, so an
 * identity's reachable services are one join through its dial/bind rows.
 */
export const policyLinks = sqliteTable(
  'policy_links',
  {
    policyId: text('policy_id').notNull(),
    role: text('role', { enum: ['identity', 'service', 'router', 'postureCheck'] }).notNull(),
    entityId: text('entity_id').notNull(),
    policyType: text('policy_type', { enum: ['dial', 'bind', 'erp', 'serp'] }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.policyId, t.role, t.entityId] }), index('policy_links_entity_idx').on(t.entityId, t.role, t.policyType, t.policyId)],
);

/**
 * Each service's Dial and Bind service policies, as a JSON array of `[policyId, 'dial' | 'bind']` in
 * the links index's order: what `policy_links` says, kept beside it so that a page of services reads one
 * value per service instead of walking its link rows (docs/adr/0006-policy-links.md). Every service has
 * exactly one row, rewritten in the batch of every write that changes the service's Dial/Bind links.
 */
export const serviceGrantSets = sqliteTable('service_grant_sets', { serviceId: text('service_id').primaryKey(), grants: text('grants').notNull() });

/**
 * A counter moved forward in the batch of every write that changes service-policy links (policy writes,
 * identity and service creates, attribute changes and deletes). A cached total is valid only for the
 * generation it was computed at, so a stale one is never served.
 */
export const linkGenerations = sqliteTable('link_generations', { id: text('id').primaryKey(), generation: integer('generation').notNull().default(0) });

/**
 * Exact totals of `GET /identities/{id}/services` (per identity and policy types), computed on the first
 * read after a change and kept with the generation they were computed at (docs/adr/0006-policy-links.md).
 */
export const accessCounts = sqliteTable(
  'access_counts',
  { identityId: text('identity_id').notNull(), policyTypes: text('policy_types').notNull(), generation: integer('generation').notNull(), total: integer('total').notNull() },
  (t) => [primaryKey({ columns: [t.identityId, t.policyTypes] })],
);
