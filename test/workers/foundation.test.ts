import { workerClient } from './helpers.js';
import { foundationSuite } from '../shared/foundation.suite.js';

const client = workerClient();
foundationSuite(() => client);
