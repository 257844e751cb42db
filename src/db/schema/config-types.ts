import { sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { baseColumns } from './common.js';

/** Config types (reference model-and-policies §5.1): a name and an optional JSON schema for configs' data. */
export const configTypes = sqliteTable('config_types', { ...baseColumns(), name: text('name').notNull(), schema: text('schema').notNull().default('{}') }, (t) => [uniqueIndex('config_types_name_uq').on(t.name)]);
