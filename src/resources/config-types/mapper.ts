import { links } from '../../crud/render.js';
import { iso } from '../../lib/time.js';
import type { ConfigTypeDetail } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import { isEmptySchema } from '../../lib/json-schema.js';
import type { ConfigTypeRow } from './entity.js';

const CONFIG_TYPE_LINKS = { configs: 'configs' };

/**
 * A type without a schema renders `"schema": null`, as controller v1.6.2 does (config_type_test.go). The
 * store keeps "no schema" as `{}` (the column is NOT NULL), so a type created with an explicit `{}`
 * renders null as well: both mean "data is not checked".
 */
export function renderConfigType(t: ConfigTypeRow): ConfigTypeDetail {
  const schema = readJson<Record<string, unknown> | null>(t.schema, null);
  return {
    id: t.id,
    createdAt: iso(t.createdAt),
    updatedAt: iso(t.updatedAt),
    tags: readJson<Record<string, unknown>>(t.tags, {}),
    _links: links(`./config-types/${t.id}`, CONFIG_TYPE_LINKS),
    name: t.name,
    schema: isEmptySchema(schema) ? null : schema,
  };
}
