import { env } from 'cloudflare:workers';
import { openD1 } from '../../src/db/open.js';
import { storeFixtures } from '../shared/auth-fixtures.js';
import { robustnessSuite } from '../shared/robustness.suite.js';
import { workerClient } from './helpers.js';

const client = workerClient();
// The same D1 database the worker under test uses.
const fixtures = storeFixtures(openD1((env as unknown as { DB: D1Database }).DB));

robustnessSuite(() => client, () => fixtures, { rounds: 2 });
