import { afterAll, beforeAll, describe } from 'vitest';
import { createNodeTestApp, type NodeTestApp } from '../helpers/node-app.js';
import type { Suite } from '../shared/suite.js';

/** Every shared suite with a default export, on Node: the app in-process on a temporary libSQL file. */
const suites = import.meta.glob<{ default?: Suite }>('../shared/*.suite.ts', { eager: true });

let t: NodeTestApp;
beforeAll(async () => {
  t = await createNodeTestApp();
});
afterAll(() => t?.close());

for (const [file, module] of Object.entries(suites)) {
  if (module.default) describe(file.replace(/^.*\/|\.suite\.ts$/g, ''), () => module.default!({ runtime: 'node', client: () => t.client, db: () => t.deps.db }));
}
