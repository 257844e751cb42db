import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { FieldMap, FieldType, SetField } from './compiler.js';

/**
 * A set field over a JSON array TEXT column (role attributes, role lists). A corrupt value reads as an empty
 * set instead of failing the query, as readJson does on the read side.
 */
export function jsonArraySet(column: SQL | SQLWrapper, type: FieldType = 'string'): SetField {
  return { type, set: true, values: sql`json_each(CASE WHEN json_valid(${column}) THEN ${column} ELSE '[]' END)` };
}

/** The columns every entity table has (src/db/schema/common.ts). */
export interface CommonColumns {
  id: SQL | SQLWrapper;
  createdAt: SQL | SQLWrapper;
  updatedAt: SQL | SQLWrapper;
  isSystem: SQL | SQLWrapper;
  tags: SQL | SQLWrapper;
}

/** The public fields every entity type has: id, createdAt, updatedAt, isSystem and tags (`tags.<key>`). */
export function commonFields(t: CommonColumns): FieldMap {
  return {
    id: { type: 'string', sql: t.id },
    createdAt: { type: 'datetime', sql: t.createdAt },
    updatedAt: { type: 'datetime', sql: t.updatedAt },
    isSystem: { type: 'bool', sql: t.isSystem },
    tags: { type: 'map', sql: t.tags },
  };
}
