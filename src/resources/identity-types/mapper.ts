import { links } from '../../crud/render.js';
import { readJson } from '../../lib/json.js';
import { iso } from '../../lib/time.js';
import type { IdentityTypeDetail } from '../../generated/management-types.js';
import type { IdentityTypeRow } from './entity.js';

export function renderIdentityType(t: IdentityTypeRow): IdentityTypeDetail {
  return {
    id: t.id,
    createdAt: iso(t.createdAt),
    updatedAt: iso(t.updatedAt),
    tags: readJson<Record<string, unknown>>(t.tags, {}),
    _links: links(`./identity-types/${t.id}`),
    name: t.name,
  };
}
