import { sql } from 'drizzle-orm';
import type { ResolvedListQuery } from '../../crud/list-query.js';
import { listPage } from '../../crud/repo.js';
import type { Db } from '../../db/client.js';
import type { FieldMap } from '../../lib/zitiql/index.js';

/**
 * The posture check types are fixed content (reference model-and-policies §7.4), not a table: the list's
 * filter, sort and paging run over this source, built from the ids and names alone.
 */
const column = (name: string) => sql`${sql.identifier('pct')}.${sql.identifier(name)}`;

export const postureCheckTypeFields: FieldMap = {
  id: { type: 'string', sql: column('id') },
  createdAt: { type: 'datetime', sql: column('created_at') },
  updatedAt: { type: 'datetime', sql: column('updated_at') },
  isSystem: { type: 'bool', sql: column('is_system') },
  tags: { type: 'map', sql: column('tags') },
  name: { type: 'string', sql: column('name') },
};

/** The ids of the types matching the list query, in its order and page, with the total. */
export async function listPostureCheckTypeIds(db: Db, types: readonly { id: string; name: string }[], at: number, q: ResolvedListQuery): Promise<{ ids: string[]; total: number }> {
  const source = sql`(SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.name') AS name, ${at} AS created_at, ${at} AS updated_at, '{}' AS tags, 0 AS is_system
    FROM json_each(${JSON.stringify(types)})) AS ${sql.identifier('pct')}`;
  const { rows, total } = await listPage(
    (p) => db.select({ id: sql<string>`${column('id')}` }).from(source).where(q.where).orderBy(...q.orderBy).limit(p.limit).offset(p.offset),
    () => db.select({ n: sql<number>`count(*)` }).from(source).where(q.where),
    q,
  );
  return { ids: rows.map((r) => r.id), total };
}
