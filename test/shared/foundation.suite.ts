import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { CLIENT, MGMT } from '../helpers/client.js';
import type { SuiteContext } from './suite.js';

const ERROR_META = { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' };

function expectError(reply: { status: number; body: any }, status: number, code: string) {
  expect(reply.status).toBe(status);
  expect(reply.body.error.code).toBe(code);
  expect(typeof reply.body.error.message).toBe('string');
  expect(reply.body.error.requestId).toMatch(/^[0-9A-Za-z]{6,}$/);
  expect(reply.body.meta).toEqual(ERROR_META);
}

/** Discovery and the envelope rules, run unchanged on Node and on workerd. */
export default function foundationSuite({ client }: SuiteContext): void {
  describe('discovery', () => {
    it('serves the version document on both APIs, at the root and on the bare base paths', async () => {
      for (const path of [`${CLIENT}/version`, `${MGMT}/version`, '/version', '/', CLIENT, MGMT, `${MGMT}/`, '/edge/v1/version']) {
        const reply = await client().get(path);
        expect(reply.status, path).toBe(200);
        expect(reply.body.meta).toEqual({});
        const data = reply.body.data;
        expect(data.version).toBe('v1.6.2');
        expect(Object.keys(data.apiVersions).sort()).toEqual(['edge', 'edge-client', 'edge-management', 'edge-oidc', 'health-checks']);
        expect(data.apiVersions['edge-client'].v1.path).toBe('/edge/client/v1');
        expect(data.apiVersions['edge-management'].v1.apiBaseUrls[0]).toMatch(/^https:\/\/.+\/edge\/management\/v1$/);
        expect(data.apiVersions.edge).toEqual(data.apiVersions['edge-client']);
        // OIDC is on by default (ZITI_OIDC); SDKs switch to it when they see the capability.
        expect(data.capabilities).toEqual(['OIDC_AUTH']);
      }
    });

    it('tolerates doubled slashes inside paths', async () => {
      const reply = await client().get('//edge//management/v1//version');
      expect(reply.status).toBe(200);
      expect(reply.body.data.version).toBe('v1.6.2');
    });

    it('lists the enumerated capabilities', async () => {
      const reply = await client().get(`${MGMT}/enumerated-capabilities`);
      expect(reply.body).toEqual({ data: ['OIDC_AUTH', 'HA_CONTROLLER'], meta: {} });
    });

    it('lists and details the specs', async () => {
      const list = await client().get(`${CLIENT}/specs`);
      expect(list.status).toBe(200);
      expect(list.body.data.map((s: any) => s.id)).toEqual(['edge-client', 'edge-management']);
      expect(list.body.data[0]._links.spec.href).toBe('./specs/edge-client/spec');
      expect(list.body.data[0].createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const detail = await client().get(`${MGMT}/specs/edge-management`);
      expect(detail.body.data.name).toBe('edge-management');
      expectError(await client().get(`${CLIENT}/specs/nope`), 404, 'NOT_FOUND');
      expectError(await client().get(`${CLIENT}/specs/nope/spec`), 404, 'NOT_FOUND');
    });

    it('serves a spec body as the raw JSON document, no envelope, by default and for JSON or wildcard Accept', async () => {
      for (const accept of [undefined, 'application/json', '*/*', 'application/json, text/yaml;q=0.5', 'text/html']) {
        const reply = await client().request(`${MGMT}/specs/edge-management/spec`, accept ? { headers: { accept } } : {});
        expect(reply.status, accept).toBe(200);
        expect(reply.headers.get('content-type'), accept).toBe('application/json');
        const doc = JSON.parse(reply.text);
        expect(doc.data, 'no envelope').toBeUndefined();
        expect(doc.swagger).toBe('2.0');
        expect(doc.basePath).toBe('/edge/management/v1');
        expect(doc.paths['/identities'].get.operationId).toBe('listIdentities');
        expect(doc.paths['/specs/{id}/spec'].get.produces).toEqual(['text/yaml', 'application/json']);
      }
      const clientDoc = JSON.parse((await client().get(`${CLIENT}/specs/edge-client/spec`)).text);
      expect(clientDoc).toMatchObject({ swagger: '2.0', basePath: '/edge/client/v1' });
      expect(clientDoc.paths['/authenticate'].post.operationId).toBe('authenticate');
    });

    it('serves a spec body as YAML (text/yaml) when Accept asks for YAML, the same document as the JSON one (specs_test.go)', async () => {
      const json = JSON.parse((await client().get(`${CLIENT}/specs/edge-client/spec`)).text);
      for (const accept of ['text/yaml', 'application/x-yaml', 'application/yaml', 'text/yaml; q=0.9, application/json; q=0.5', 'application/json;q=0.1,text/yaml']) {
        for (const base of [CLIENT, MGMT]) {
          const reply = await client().request(`${base}/specs/edge-client/spec`, { headers: { accept } });
          expect(reply.status, accept).toBe(200);
          expect(reply.headers.get('content-type'), accept).toBe('text/yaml');
          expect(reply.headers.get('vary'), accept).toContain('Accept');
          const doc = parseYaml(reply.text);
          expect(doc !== null && typeof doc === 'object' && !Array.isArray(doc), 'a YAML map').toBe(true);
          expect(Object.keys(doc).length).toBeGreaterThan(0);
          expect(doc).toEqual(json);
        }
      }
      // Block YAML, not JSON text: one key per line.
      const yaml = (await client().request(`${MGMT}/specs/edge-management/spec`, { headers: { accept: 'text/yaml' } })).text;
      expect(yaml.startsWith('swagger: "2.0"\ninfo:\n  title: "Ziti Edge Management"\n')).toBe(true);
      expect(parseYaml(yaml)).toMatchObject({ swagger: '2.0', basePath: '/edge/management/v1' });
    });

    it('serves swagger.json on both APIs: the raw JSON document, anonymous', async () => {
      for (const [base, id] of [[CLIENT, 'edge-client'], [MGMT, 'edge-management']] as const) {
        const reply = await client().request(`${base}/swagger.json`, { headers: { accept: 'text/yaml' } });
        expect(reply.status, base).toBe(200);
        expect(reply.headers.get('content-type')).toBe('application/json');
        expect(reply.body).toMatchObject({ swagger: '2.0', basePath: base });
        expect(reply.headers.get('vary') ?? '').not.toContain('Accept');
        expect(reply.text).toBe((await client().get(`${base}/specs/${id}/spec`)).text);
        const head = await client().request(`${base}/swagger.json`, { method: 'HEAD' });
        expect(head.status).toBe(200);
        expect(head.text).toBe('');
        expectError(await client().request(`${base}/swagger.json`, { method: 'POST', body: {} }), 405, 'METHOD_NOT_ALLOWED');
      }
    });

    it('serves the trust bundle as base64 PKCS#7 at the root and under both base paths', async () => {
      const bodies = new Set<string>();
      for (const path of ['/.well-known/est/cacerts', `${CLIENT}/.well-known/est/cacerts`, `${MGMT}/.well-known/est/cacerts`]) {
        const reply = await client().get(path);
        expect(reply.status, path).toBe(200);
        expect(reply.headers.get('content-type')).toBe('application/pkcs7-mime');
        expect(reply.headers.get('content-transfer-encoding')).toBe('base64');
        const lines = reply.text.split('\n');
        expect(lines.every((l) => l.length <= 64 && /^[A-Za-z0-9+/=]+$/.test(l))).toBe(true);
        expect(reply.text.endsWith('\n')).toBe(false);
        bodies.add(reply.text);
      }
      expect(bodies.size).toBe(1);
      const der = Uint8Array.from(atob([...bodies][0].replace(/\n/g, '')), (ch) => ch.charCodeAt(0));
      const certs = new x509.X509Certificates(der);
      expect(certs.length).toBeGreaterThanOrEqual(2);
      for (const cert of certs) {
        const bc = cert.getExtension(x509.BasicConstraintsExtension);
        expect(bc?.ca).toBe(true);
      }
      expect(certs.some((c) => c.subject === c.issuer)).toBe(true);
    });

    it('serves a network JWT signed like enrollment JWTs', async () => {
      for (const path of [`${CLIENT}/network-jwts`, `${MGMT}/network-jwts`, '/network-jwts']) {
        const reply = await client().get(path);
        expect(reply.status, path).toBe(200);
        expect(reply.body.data).toHaveLength(1);
        expect(reply.body.data[0].name).toBe('default');
        const token = reply.body.data[0].token as string;
        const header = decodeProtectedHeader(token);
        expect(header.alg).toBe('ES256');
        expect(header.kid).toMatch(/^[0-9a-f]{40}$/);
        const claims = decodeJwt(token);
        expect(claims.iss).toMatch(/^https:\/\/.+\/$/);
        expect(claims.sub).toBe(claims.iss);
        expect(claims.aud).toEqual(['openziti-enroller']);
        expect(claims.em).toBe('network');
        expect(claims.exp).toBeUndefined();
      }
    });

    it('lists protocols on the client API', async () => {
      const reply = await client().get(`${CLIENT}/protocols`);
      expect(reply.status).toBe(200);
      expect(reply.body.data.https.address).toMatch(/^https:\/\//);
    });
  });

  describe('envelopes and bad input', () => {
    it('answers unknown paths with a 404 envelope', async () => {
      const reply = await client().get(`${MGMT}/no-such-thing`);
      expectError(reply, 404, 'NOT_FOUND');
      expect(reply.body.error.cause.message).toContain('/edge/management/v1/no-such-thing');
    });

    it('answers a wrong method on a known path with 405', async () => {
      expectError(await client().request(`${MGMT}/version`, { method: 'DELETE' }), 405, 'METHOD_NOT_ALLOWED');
    });

    it('refuses anonymous callers on secured operations with 401, and garbage session tokens too', async () => {
      expectError(await client().get(`${MGMT}/identities`), 401, 'UNAUTHORIZED');
      expectError(await client().get(`${MGMT}/identities`, 'not-a-token'), 401, 'UNAUTHORIZED');
      expectError(await client().get(`${CLIENT}/current-identity`, crypto.randomUUID()), 401, 'UNAUTHORIZED');
      expectError(await client().request(`${MGMT}/identities`, { token: "'; drop table identities; --", body: { name: 'x' } }), 401, 'UNAUTHORIZED');
    });

    it('validates query parameters against the specification', async () => {
      const reply = await client().request(`${CLIENT}/authenticate?method=bogus`, { body: { username: 'admin', password: 'whatever' } });
      expectError(reply, 400, 'COULD_NOT_VALIDATE');
      expect(reply.body.error.cause.field).toBe('method');
      const missing = await client().request(`${CLIENT}/authenticate`, { body: {} });
      expectError(missing, 400, 'COULD_NOT_VALIDATE');
      expect(missing.body.error.cause.field).toBe('method');
    });

    it('refuses malformed JSON, wrong content types, schema violations and oversized bodies', async () => {
      const path = `${CLIENT}/enroll/challenge`;
      expectError(await client().request(path, { raw: '{"nonce":', headers: { 'content-type': 'application/json' } }), 400, 'COULD_NOT_PARSE_BODY');
      expectError(await client().request(path, { raw: 'nonce=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'COULD_NOT_VALIDATE');
      const invalid = await client().request(path, { body: { nonce: 5 } });
      expectError(invalid, 400, 'COULD_NOT_VALIDATE');
      expect(invalid.body.error.cause.field).toBeTruthy();
      const big = 'x'.repeat(1024 * 1024 + 10);
      expectError(await client().request(path, { raw: JSON.stringify({ nonce: big }), headers: { 'content-type': 'application/json' } }), 413, 'REQUEST_TOO_LARGE');
    });

    it('puts a request id and the controller headers on every response', async () => {
      for (const path of [`${CLIENT}/version`, `${MGMT}/nope`]) {
        const reply = await client().get(path);
        expect(reply.headers.get('x-request-id')).toMatch(/^[0-9A-Za-z]+$/);
        expect(reply.headers.get('ziti-instance-id')).toBeTruthy();
        expect(reply.headers.get('server')).toBe('ziti-controller/v1.6.2');
      }
    });

    it('answers CORS pre-flights and echoes an allowed origin (the controller\'s own, loopback, ZITI_CORS_ORIGINS)', async () => {
      const own = 'https://localhost:1280';
      const pre = await client().request(`${MGMT}/identities`, { method: 'OPTIONS', headers: { origin: own, 'access-control-request-method': 'GET' } });
      expect(pre.status).toBe(200);
      expect(pre.headers.get('access-control-allow-origin')).toBe(own);
      expect(pre.headers.get('access-control-allow-headers')).toContain('zt-session');
      const get = await client().request(`${MGMT}/version`, { headers: { origin: own } });
      expect(get.headers.get('access-control-allow-origin')).toBe(own);
      const other = await client().request(`${MGMT}/version`, { headers: { origin: 'https://console.example' } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      expect(other.headers.get('access-control-allow-credentials')).toBeNull();
      expect(get.headers.get('access-control-allow-credentials')).toBe('true');
    });
  });
}
