import { crudHandlers } from '../../http/crud.js';
import type { HandlerMap } from '../../http/handler.js';
import { authenticatorEntity } from './repo.js';
import { authenticatorService } from './service.js';

/** Management `/authenticators` (admin). */
export const authenticatorHandlers: HandlerMap = crudHandlers(authenticatorEntity, authenticatorService, {
  list: 'listAuthenticators',
  detail: 'detailAuthenticator',
  create: 'createAuthenticator',
  update: 'updateAuthenticator',
  patch: 'patchAuthenticator',
  delete: 'deleteAuthenticator',
});
