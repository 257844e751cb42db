import { eq, sql, type SQL } from 'drizzle-orm';
import { qualified as q } from '../../crud/repo.js';
import type { Db } from '../../db/client.js';
import { configs, configTypes } from '../../db/schema/index.js';

/** The config type's name, selected with each config for its `configType` entityRef. */
export function configExtras() {
  return { configTypeName: sql<string | null>`(SELECT ${q(configTypes.name)} FROM ${configTypes} WHERE ${q(configTypes.id)} = ${q(configs.configTypeId)})` };
}

export function configsOfType(configTypeId: string): SQL {
  return eq(configs.configTypeId, configTypeId);
}

/** A config type's schema text, or undefined when there is no such type. */
export async function configTypeSchema(db: Db, id: string): Promise<string | undefined> {
  const rows = await db.select({ schema: configTypes.schema }).from(configTypes).where(eq(configTypes.id, id)).limit(1);
  return rows[0]?.schema;
}
