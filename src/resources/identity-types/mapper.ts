import { baseEntity } from '../../crud/render.js';
import type { IdentityTypeDetail } from '../../generated/management-types.js';
import type { IdentityTypeRow } from './entity.js';

export function renderIdentityType(t: IdentityTypeRow): IdentityTypeDetail {
  return { ...baseEntity(t, `./identity-types/${t.id}`), name: t.name };
}
