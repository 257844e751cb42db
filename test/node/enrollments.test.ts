import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeTestApp, type NodeTestApp } from '../helpers/node-app.js';
import { enrollmentStore } from '../shared/enrollment-fixtures.js';
import { enrollmentsSuite } from '../shared/enrollments.suite.js';

let t: NodeTestApp;
beforeAll(async () => {
  t = await createNodeTestApp();
});
afterAll(() => t?.close());

enrollmentsSuite(() => t.client, () => enrollmentStore(t.deps.db));

describe('robustness', () => {
  it('no request of the suite above failed with an unexpected (500) error', () => {
    expect(t.logs.filter((l) => l.includes('unhandled'))).toEqual([]);
  });
});
