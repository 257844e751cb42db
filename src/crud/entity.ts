/**
 * An entity's declaration: its table, public fields, writable properties and identity rules, declared
 * once in its resource folder (`resources/<resource>/entity.ts`) and used by the generic repo and
 * services of this folder.
 */
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { FieldMap } from './list-query.js';
import type { ColumnOf, Props } from './props.js';

/** The columns every entity table has (src/db/schema/common.ts). */
export type EntityTable = SQLiteTable & {
  id: SQLiteColumn;
  createdAt: SQLiteColumn;
  updatedAt: SQLiteColumn;
  tags: SQLiteColumn;
  isSystem: SQLiteColumn;
};

export interface BaseRow {
  id: string;
  createdAt: number;
  updatedAt: number;
  tags: string;
  isSystem: boolean;
}

export interface UniqueColumn<T extends SQLiteTable> {
  column: ColumnOf<T>;
  /** The API field named in the 400 cause. */
  field: string;
}

export interface EntityDef<T extends EntityTable, P extends Props<T> = Props<T>> {
  /** Singular name in messages: `identity with id x not found`. */
  entity: string;
  /** The URL collection: links are `./<collection>/<id>`. */
  collection: string;
  table: T;
  /** Public filter and sort fields (reference model-and-policies §1.6). */
  fields: FieldMap;
  /** Writable properties: what create, PUT and PATCH may write. `tags` is added for every entity. */
  props: P;
  /** Unique columns: checked before a write and mapped from the unique index's violation. */
  unique?: UniqueColumn<T>[];
  newId(): string;
  /** isSystem rows refuse update / delete through the API (400 ENTITY_CAN_NOT_BE_UPDATED / _DELETED). */
  protectSystem?: { update?: boolean; delete?: boolean };
}

/** The row type of an entity's table. */
export type RowOf<T extends EntityTable> = T['$inferSelect'] & BaseRow;

const TAGS = { tags: { column: 'tags', kind: 'map' } } as const;

type Depth = [never, 0, 1, 2, 3];
/** The dotted JSON paths of a body type: `name`, `primary.updb.maxAttempts`, ... */
export type BodyPath<B, D extends number = 4> = [D] extends [never]
  ? never
  : B extends readonly unknown[]
    ? never
    : B extends object
      ? { [K in keyof B & string]: K | (NonNullable<B[K]> extends readonly unknown[] ? never : NonNullable<B[K]> extends object ? `${K}.${BodyPath<NonNullable<B[K]>, Depth[D]>}` : never) }[keyof B & string]
      : never;

/**
 * Declares an entity whose create body is `Body` (a generated type). Every entity has writable `tags` (a
 * flat map), so it need not be declared. The properties are checked on both ends: each key must be a path
 * of the body, each column a column of the table, so `{ column: 'schem' }` or a misspelt body path do not
 * compile.
 *
 * ```ts
 * export const configTypeEntity = defineEntity<ConfigTypeCreate>()({ table: configTypes, props: { schema: { column: 'schema', kind: 'object' } }, ... });
 * ```
 */
export function defineEntity<Body>() {
  return <T extends EntityTable, const P extends Props<T> & { [K in keyof P]: K extends BodyPath<Body> ? unknown : `${K & string} is not a property of the body` }>(def: EntityDef<T, P>): EntityDef<T, P & typeof TAGS> => ({
    ...def,
    props: { ...TAGS, ...def.props } as P & typeof TAGS,
  });
}

