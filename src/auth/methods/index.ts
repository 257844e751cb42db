import { ApiError } from '../../http/errors.js';
import { passwordLogin } from './password.js';
import type { AuthMethod } from './types.js';

/**
 * Primary authentication methods by the `method` query parameter. Certificate and external-JWT
 * authentication plug in here; until they do, they fail like any refused login.
 */
export const authMethods: Record<string, AuthMethod> = {
  password: passwordLogin,
  cert: async () => {
    throw new ApiError('INVALID_AUTH');
  },
  'ext-jwt': async () => {
    throw new ApiError('INVALID_AUTH');
  },
};
