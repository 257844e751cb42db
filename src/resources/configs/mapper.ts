import { entityRef, links } from '../../crud/render.js';
import { iso } from '../../lib/time.js';
import type { ConfigDetail } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import type { ConfigRow } from './entity.js';

export function renderConfig(c: ConfigRow, configTypeName: string): ConfigDetail {
  return {
    id: c.id,
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
    tags: readJson<Record<string, unknown>>(c.tags, {}),
    _links: links(`./configs/${c.id}`, { 'config-type': `./config-types/${c.configTypeId}` }),
    name: c.name,
    configTypeId: c.configTypeId,
    configType: entityRef('config-types', c.configTypeId, configTypeName),
    data: readJson(c.data, {}),
  };
}
