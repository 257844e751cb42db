import { env } from 'cloudflare:workers';
import { openD1 } from '../../src/db/open.js';
import { enrollmentStore } from '../shared/enrollment-fixtures.js';
import { enrollSuite } from '../shared/enroll.suite.js';
import { workerClient } from './helpers.js';

const client = workerClient();
const store = enrollmentStore(openD1((env as unknown as { DB: D1Database }).DB));
enrollSuite(() => client, () => store);
