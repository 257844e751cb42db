import { hostileInputSuite } from '../shared/hostile-input.suite.js';
import { workerClient } from './helpers.js';

const client = workerClient();
hostileInputSuite(() => client);
