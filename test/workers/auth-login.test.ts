import { workerClient } from './helpers.js';
import { authLoginSuite } from '../shared/auth-login.suite.js';

const client = workerClient();
authLoginSuite(() => client);
