import { afterAll, beforeAll } from 'vitest';
import { createNodeTestApp, type NodeTestApp } from '../helpers/node-app.js';
import { foundationSuite } from '../shared/foundation.suite.js';

let t: NodeTestApp;
beforeAll(async () => {
  t = await createNodeTestApp();
});
afterAll(() => t?.close());

foundationSuite(() => t.client);
