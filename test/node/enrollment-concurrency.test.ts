import { afterAll, beforeAll } from 'vitest';
import { createNodeCertApp, type NodeCertApp } from '../helpers/node-cert-app.js';
import { enrollmentConcurrencySuite } from '../shared/enrollment-concurrency.suite.js';

let t: NodeCertApp;
beforeAll(async () => {
  t = await createNodeCertApp();
});
afterAll(() => t?.close());

enrollmentConcurrencySuite(
  () => t.client,
  () => ({ seesChain: true, client: (chain) => t.withCertificate({ chainDer: chain.map((c) => new Uint8Array(c.rawData)) }) }),
);
