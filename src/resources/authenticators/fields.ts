/**
 * Filterable fields of authenticator lists (reference model-and-policies §1.6), without the password hash
 * and salt. Shared with `/current-identity/authenticators`, whose resource declared them first.
 */
export { authenticatorFields } from '../current-identity/fields.js';
