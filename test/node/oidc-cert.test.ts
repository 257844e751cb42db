import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeCertApp, type NodeCertApp } from '../helpers/node-cert-app.js';
import { oidcCertSuite } from '../shared/oidc-cert.suite.js';

let t: NodeCertApp;
beforeAll(async () => {
  t = await createNodeCertApp();
});
afterAll(() => t?.close());

oidcCertSuite(
  () => t.client,
  () => ({ seesChain: true, client: (chain) => t.withCertificate({ chainDer: chain.map((c) => new Uint8Array(c.rawData)) }) }),
);

describe('robustness', () => {
  it('no request of the suite above failed with an unexpected (500) error', () => {
    expect(t.logs.filter((l) => l.includes('unhandled'))).toEqual([]);
  });
});
