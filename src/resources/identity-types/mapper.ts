import { links } from '../../http/envelope.js';
import { readJson } from '../../lib/json.js';
import { iso } from '../../lib/time.js';
import type { IdentityTypeRow } from './repo.js';

export function renderIdentityType(t: IdentityTypeRow) {
  return {
    id: t.id,
    createdAt: iso(t.createdAt),
    updatedAt: iso(t.updatedAt),
    tags: readJson(t.tags, {}),
    _links: links(`./identity-types/${t.id}`),
    name: t.name,
  };
}
