import { env } from 'cloudflare:workers';
import { openD1 } from '../../src/db/open.js';
import { crudSuite } from '../shared/crud.suite.js';
import { workerClient } from './helpers.js';

const client = workerClient();
// The same D1 database the worker under test uses.
const db = openD1((env as unknown as { DB: D1Database }).DB);
crudSuite(() => client, () => db);
