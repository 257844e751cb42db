import { resourceService } from '../../crud/service.js';
import { identityTypeEntity } from './entity.js';
import { renderIdentityType } from './mapper.js';

export const identityTypeService = resourceService(identityTypeEntity, { render: (r) => renderIdentityType(r.row) });
