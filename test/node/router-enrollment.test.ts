import { afterAll, beforeAll } from 'vitest';
import { createNodeCertApp, type NodeCertApp } from '../helpers/node-cert-app.js';
import { routerExtendSuite } from '../shared/router-enrollment.suite.js';

let t: NodeCertApp;
beforeAll(async () => {
  t = await createNodeCertApp();
});
afterAll(() => t?.close());

routerExtendSuite(
  () => t.client,
  () => ({ seesChain: true, client: (chain) => t.withCertificate({ chainDer: chain.map((c) => new Uint8Array(c.rawData)) }) }),
);
