import { baseEntity, entityRef } from '../../crud/render.js';
import type { ConfigDetail } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import type { ConfigRow } from './entity.js';

export function renderConfig(c: ConfigRow, configTypeName: string): ConfigDetail {
  return {
    ...baseEntity(c, `./configs/${c.id}`, { 'config-type': `./config-types/${c.configTypeId}` }),
    name: c.name,
    configTypeId: c.configTypeId,
    configType: entityRef('config-types', c.configTypeId, configTypeName),
    data: readJson(c.data, {}),
  };
}
