import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { FieldMap, FieldType, ScalarField, SetField } from './compiler.js';

/**
 * A set field over a JSON array TEXT column (role attributes, role lists). A corrupt value reads as an empty
 * set instead of failing the query, as readJson does on the read side.
 */
export function jsonArraySet(column: SQL | SQLWrapper, type: FieldType = 'string'): SetField {
  return { type, set: true, values: sql`json_each(CASE WHEN json_valid(${column}) THEN ${column} ELSE '[]' END)` };
}

/** A set field over a sub-query yielding a `value` column, such as the ids of linked rows. */
export function linkedSet(values: SQL, type: FieldType = 'string'): SetField {
  return { type, set: true, values: sql`(${values})` };
}

/**
 * A field with one value on every row: one this controller never holds (a router's live state, fields set
 * only on records routers create), public because the controller's is, so that filters naming it work.
 */
export function constantField(type: FieldType, value: boolean | null): ScalarField {
  return { type, sql: value === null ? sql`NULL` : value ? sql`1` : sql`0` };
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
