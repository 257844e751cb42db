import { renderAuthenticator } from '../authenticators/mapper.js';
import type { AuthenticatorRow } from '../authenticators/entity.js';

/**
 * An authenticator of the caller (`authenticatorDetail`), linked under `./current-identity/authenticators`
 * as the controller links it there. The password hash is never rendered.
 */
export function renderOwnAuthenticator(a: AuthenticatorRow, identityName: string) {
  return renderAuthenticator(a, identityName, 'own');
}
