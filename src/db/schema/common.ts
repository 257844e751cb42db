import { integer, text } from 'drizzle-orm/sqlite-core';

/**
 * Column conventions shared by every entity table:
 * - ids are opaque TEXT;
 * - timestamps are INTEGER Unix milliseconds (indexable, compared numerically by the filter language)
 *   and rendered as RFC 3339 with three fractional digits;
 * - tags and other maps are JSON object TEXT; role attributes are JSON array TEXT kept sorted and unique;
 * - booleans are INTEGER 0/1.
 */
export const baseColumns = () => ({
  id: text('id').primaryKey(),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
  tags: text('tags').notNull().default('{}'),
  isSystem: integer('is_system', { mode: 'boolean' }).notNull().default(false),
});
