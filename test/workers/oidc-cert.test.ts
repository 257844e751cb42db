import { exports } from 'cloudflare:workers';
import { TestClient } from '../helpers/client.js';
import { oidcCertSuite } from '../shared/oidc-cert.suite.js';
import { sha1Hex } from '../shared/pki-helpers.js';
import { workerClient } from './helpers.js';

const client = workerClient();

/** Requests as the platform delivers them after hostname mTLS verified the client's leaf. */
function mtlsClient(leafDer: ArrayBuffer): TestClient {
  return new TestClient(async (request) => {
    const tlsClientAuth = { certPresented: '1', certVerified: 'SUCCESS', certFingerprintSHA1: (await sha1Hex(leafDer)).toUpperCase() };
    return (exports as any).default.fetch(new Request(request, { cf: { tlsClientAuth } } as RequestInit));
  });
}

oidcCertSuite(
  () => client,
  () => ({ seesChain: false, client: (chain) => mtlsClient(chain[0].rawData) }),
);
