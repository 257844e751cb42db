export * from './pki.js';
export * from './identities.js';
export * from './enrollment.js';
