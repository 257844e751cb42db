import { exports } from 'cloudflare:workers';
import { TestClient } from '../helpers/client.js';
import { enrollmentConcurrencySuite } from '../shared/enrollment-concurrency.suite.js';
import { sha1Hex } from '../shared/pki-helpers.js';
import { workerClient } from './helpers.js';

const client = workerClient();

/**
 * Requests as a zone with hostname mTLS delivers them when it also forwards the verified leaf (the
 * header named by ZITI_CLIENT_CERT_HEADER in the test bindings): third-party flows need the certificate
 * itself, not only its fingerprint.
 */
function mtlsClient(leafDer: ArrayBuffer): TestClient {
  return new TestClient(async (request) => {
    const tlsClientAuth = { certPresented: '1', certVerified: 'SUCCESS', certFingerprintSHA1: await sha1Hex(leafDer) };
    const headers = new Headers(request.headers);
    headers.set('x-client-cert-der', btoa(String.fromCharCode(...new Uint8Array(leafDer))));
    return (exports as any).default.fetch(new Request(request, { headers, cf: { tlsClientAuth } } as RequestInit));
  });
}

enrollmentConcurrencySuite(
  () => client,
  () => ({ seesChain: false, client: (chain) => mtlsClient(chain[0].rawData) }),
);
