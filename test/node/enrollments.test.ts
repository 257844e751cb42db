import { afterAll, beforeAll } from 'vitest';
import { createNodeTestApp, type NodeTestApp } from '../helpers/node-app.js';
import { enrollmentStore } from '../shared/enrollment-fixtures.js';
import { enrollmentsSuite } from '../shared/enrollments.suite.js';

let t: NodeTestApp;
beforeAll(async () => {
  t = await createNodeTestApp();
});
afterAll(() => t?.close());

enrollmentsSuite(() => t.client, () => enrollmentStore(t.deps.db));
