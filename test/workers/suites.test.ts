import { env } from 'cloudflare:workers';
import { describe } from 'vitest';
import { openD1 } from '../../src/db/open.js';
import type { Suite } from '../shared/suite.js';
import { workerClient } from './helpers.js';
import { interceptJwksFetch } from './jwks-fetch.js';

/** Every shared suite with a default export, inside workerd: the real worker, its D1 binding. */
const suites = import.meta.glob<{ default?: Suite }>('../shared/*.suite.ts', { eager: true });

const client = workerClient();
const jwks = interceptJwksFetch();
const db = openD1((env as unknown as { DB: D1Database }).DB);

for (const [file, module] of Object.entries(suites)) {
  if (module.default) describe(file.replace(/^.*\/|\.suite\.ts$/g, ''), () => module.default!({ runtime: 'workers', client: () => client, db: () => db, jwks: () => jwks }));
}
