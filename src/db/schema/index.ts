export * from './pki.js';
export * from './identities.js';
export * from './config-types.js';
export * from './configs.js';
export * from './enrollment.js';
export * from './mfa.js';
export type * from './rows.js';
export * from './external-jwt-signers.js';
