import { certMethod } from './cert.js';
import { extJwtMethod } from './ext-jwt.js';
import { passwordMethod } from './password.js';
import type { AuthMethod } from './types.js';

/**
 * Primary authentication methods by the `method` query parameter of `POST /authenticate`. A method is
 * one module implementing `AuthMethod`.
 */
export const authMethods: ReadonlyMap<string, AuthMethod> = new Map(
  [passwordMethod, certMethod, extJwtMethod].map((m) => [m.name, m]),
);

export type { AuthMethod, AuthenticateBody } from './types.js';
