import { env } from 'cloudflare:workers';
import { openD1 } from '../../src/db/open.js';
import { enrollmentStore } from '../shared/enrollment-fixtures.js';
import { enrollmentsSuite } from '../shared/enrollments.suite.js';
import { workerClient } from './helpers.js';

const client = workerClient();
const store = enrollmentStore(openD1((env as unknown as { DB: D1Database }).DB));
enrollmentsSuite(() => client, () => store);
