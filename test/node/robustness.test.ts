import { afterAll, beforeAll } from 'vitest';
import { createNodeTestApp, type NodeTestApp } from '../helpers/node-app.js';
import { storeFixtures } from '../shared/auth-fixtures.js';
import { robustnessSuite } from '../shared/robustness.suite.js';

let t: NodeTestApp;
beforeAll(async () => {
  t = await createNodeTestApp();
});
afterAll(() => t?.close());

// Counts PBKDF2 derivations with a real (non-zero) salt: each is one stored password checked.
let checked = 0;
const subtle = globalThis.crypto.subtle;
const deriveBits = subtle.deriveBits.bind(subtle);
(subtle as { deriveBits: typeof subtle.deriveBits }).deriveBits = (algorithm, key, length) => {
  const salt = (algorithm as { salt?: Uint8Array }).salt;
  if (salt && new Uint8Array(salt as ArrayBufferLike).some((b) => b !== 0)) checked++;
  return deriveBits(algorithm, key, length);
};

robustnessSuite(() => t.client, () => storeFixtures(t.deps.db), { rounds: 5, checkedHashes: () => checked });
