import { afterAll, beforeAll } from 'vitest';
import { createNodeTestApp, type NodeTestApp } from '../helpers/node-app.js';
import { enrollmentStore } from '../shared/enrollment-fixtures.js';
import { enrollSuite } from '../shared/enroll.suite.js';

let t: NodeTestApp;
beforeAll(async () => {
  t = await createNodeTestApp();
});
afterAll(() => t?.close());

enrollSuite(() => t.client, () => enrollmentStore(t.deps.db));
