import { crudHandlers } from '../../http/crud.js';
import type { HandlerMap } from '../../http/handler.js';
import { identityTypeEntity } from './repo.js';
import { identityTypeService } from './service.js';

/** Management `/identity-types` (admin, read-only). */
export const identityTypeHandlers: HandlerMap = crudHandlers(identityTypeEntity, identityTypeService, { list: 'listIdentityTypes', detail: 'detailIdentityType' });
