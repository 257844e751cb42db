export * from './pki.js';
export * from './identities.js';
export type * from './rows.js';
