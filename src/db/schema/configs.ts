import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { baseColumns } from './common.js';

/** Configs (reference model-and-policies §5.2): a name, a config type and JSON data valid for its schema. */
export const configs = sqliteTable(
  'configs',
  { ...baseColumns(), name: text('name').notNull(), configTypeId: text('config_type_id').notNull(), data: text('data').notNull().default('{}') },
  (t) => [uniqueIndex('configs_name_uq').on(t.name), index('configs_config_type_idx').on(t.configTypeId)],
);
