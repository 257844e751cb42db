export * from './pki.js';
export * from './identities.js';
