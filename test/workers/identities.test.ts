import { identitiesAuthSuite } from '../shared/identities-auth.suite.js';
import { identitiesSuite } from '../shared/identities.suite.js';
import { workerClient } from './helpers.js';

const client = workerClient();
identitiesSuite(() => client);
identitiesAuthSuite(() => client);
