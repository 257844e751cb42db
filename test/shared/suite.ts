import type { Db } from '../../src/db/client.js';
import type { TestClient } from '../helpers/client.js';
import type { JwksHost } from '../helpers/jwks-host.js';

/**
 * What a shared suite gets from the runtime that runs it. A file `test/shared/<topic>.suite.ts` whose
 * default export is a `Suite` is collected by `test/node/suites.test.ts` and `test/workers/suites.test.ts`
 * and runs unchanged on Node (libSQL) and inside workerd (D1): no per-runtime file to write.
 */
export interface SuiteContext {
  runtime: 'node' | 'workers';
  client(): TestClient;
  /** The store the app under test uses (the same libSQL file, or the same D1 binding). */
  db(): Db;
  /** An identity provider's JWKS endpoint the app under test can fetch (external JWT signers). */
  jwks(): JwksHost;
}

export type Suite = (ctx: SuiteContext) => void;
