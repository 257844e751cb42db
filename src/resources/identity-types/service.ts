import { resourceService } from '../../http/crud.js';
import { renderIdentityType } from './mapper.js';
import { identityTypeEntity } from './repo.js';

export const identityTypeService = resourceService(identityTypeEntity, { render: (r) => renderIdentityType(r.row) });
