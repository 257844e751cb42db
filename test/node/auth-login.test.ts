import { afterAll, beforeAll } from 'vitest';
import { createNodeTestApp, type NodeTestApp } from '../helpers/node-app.js';
import { authLoginSuite } from '../shared/auth-login.suite.js';

let t: NodeTestApp;
beforeAll(async () => {
  t = await createNodeTestApp();
});
afterAll(() => t?.close());

authLoginSuite(() => t.client);
