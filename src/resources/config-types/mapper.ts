import { baseEntity } from '../../crud/render.js';
import type { ConfigTypeDetail } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import type { ConfigTypeRow } from './entity.js';

export function renderConfigType(t: ConfigTypeRow): ConfigTypeDetail {
  return { ...baseEntity(t, `./config-types/${t.id}`, { configs: 'configs' }), name: t.name, schema: readJson(t.schema, {}) };
}
