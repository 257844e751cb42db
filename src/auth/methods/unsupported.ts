import { ApiError } from '../../errors.js';
import type { AuthMethod } from './types.js';

/**
 * A method this controller does not offer yet (certificate and external-JWT authentication arrive with
 * their own issues). It refuses like any failed login, so clients see the controller's answer to
 * credentials it cannot accept.
 */
export function unsupportedMethod(name: string): AuthMethod {
  return {
    name,
    async authenticate() {
      throw new ApiError('INVALID_AUTH');
    },
  };
}
