import { links } from '../../crud/render.js';
import { iso } from '../../lib/time.js';
import type { ConfigTypeDetail } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import type { ConfigTypeRow } from './entity.js';

const CONFIG_TYPE_LINKS = { configs: 'configs' };

export function renderConfigType(t: ConfigTypeRow): ConfigTypeDetail {
  return {
    id: t.id,
    createdAt: iso(t.createdAt),
    updatedAt: iso(t.updatedAt),
    tags: readJson<Record<string, unknown>>(t.tags, {}),
    _links: links(`./config-types/${t.id}`, CONFIG_TYPE_LINKS),
    name: t.name,
    schema: readJson(t.schema, {}),
  };
}
