import { afterAll, beforeAll, describe } from 'vitest';
import { createNodeTestApp, type NodeTestApp } from '../helpers/node-app.js';
import type { Suite } from '../shared/suite.js';
import { startJwksServer } from './jwks-server.js';

/** Every shared suite with a default export, on Node: the app in-process on a temporary libSQL file. */
const suites = import.meta.glob<{ default?: Suite }>('../shared/*.suite.ts', { eager: true });

let t: NodeTestApp;
let jwks: Awaited<ReturnType<typeof startJwksServer>>;
beforeAll(async () => {
  // The test identity provider listens on 127.0.0.1 over http: the one setting that permits it.
  t = await createNodeTestApp({ ZITI_JWKS_ALLOW_PRIVATE: 'true', ZITI_JWKS_TIMEOUT_MS: '1000' });
  jwks = await startJwksServer();
});
afterAll(async () => {
  t?.close();
  await jwks?.close();
});

for (const [file, module] of Object.entries(suites)) {
  if (module.default) describe(file.replace(/^.*\/|\.suite\.ts$/g, ''), () => module.default!({ runtime: 'node', client: () => t.client, db: () => t.deps.db, jwks: () => jwks }));
}
