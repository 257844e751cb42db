import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { enrollments } from '../../src/db/schema/index.js';
import { x509 } from '../../src/pki/x509.js';
import { CLIENT, type Reply, type TestClient } from '../helpers/client.js';
import { expectConforms } from '../helpers/conform.js';
import { TypedApi, type ClientOperations, type ManagementOperations } from '../helpers/typed-api.js';
import type { CertPresenter } from './cert-login.suite.js';
import { expectError, expectFieldError, expectNotFound, uniqueName } from './identities.suite.js';
import { cacertsBundle, newCsr, pemCertificates, sha1Hex } from './pki-helpers.js';
import type { Suite } from './suite.js';

const N = 50;
const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;

/** What a router sends: one key, a server CSR and a client CSR with the same subject and SANs (as `ziti router enroll`). */
async function routerCsrs(commonName: string, options: { sans?: x509.JsonGeneralNames } = {}) {
  const keys = (await crypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
  const sans: x509.JsonGeneralNames = options.sans ?? [
    { type: 'dns', value: 'router.example.test' },
    { type: 'ip', value: '127.0.0.1' },
    // A SPIFFE id naming an identity: never signed into a router certificate.
    { type: 'url', value: 'spiffe://example.test/identity/victim' },
  ];
  const make = async () =>
    (
      await x509.Pkcs10CertificateRequestGenerator.create({
        name: [{ C: ['US'] }, { ST: ['NC'] }, { L: ['Charlotte'] }, { O: ['NetFoundry'] }, { OU: ['Ziti'] }, { CN: [commonName] }],
        keys,
        signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
        extensions: sans.length > 0 ? [new x509.SubjectAlternativeNameExtension(sans)] : [],
      })
    ).toString('pem');
  return { keys, serverCertCsr: await make(), certCsr: await make() };
}

/** Management and client calls for router enrollment; fixtures never assert. */
function routerApi(client: () => TestClient) {
  let session = '';
  beforeAll(async () => {
    session = await client().login();
  });
  const admin = new TypedApi<ManagementOperations>(client, 'management', () => session);
  const enrollApi = new TypedApi<ClientOperations>(client, 'client');
  const id = (reply: { data?: { id?: string | null } | null }) => reply.data!.id!;
  const edgeRouter = async (body: Record<string, unknown> = {}) => id(await admin.ok('createEdgeRouter', { body: { name: uniqueName('er'), ...body } }));
  const transitRouter = async () => id(await admin.ok('createTransitRouter', { body: { name: uniqueName('tr') } }));
  /** The generic endpoint, as a router calls it: `POST /enroll?method=<em>&token=<jti>` with a JSON body. */
  const enroll = (token: string, body: Record<string, unknown>, method = 'erott') => client().request(`${CLIENT}/enroll?method=${method}&token=${token}`, { body });
  /** An edge router with its pending enrollment token. */
  const pendingEdge = async (body: Record<string, unknown> = {}) => {
    const rid = await edgeRouter(body);
    return { rid, token: (await admin.ok('detailEdgeRouter', { path: { id: rid } })).data.enrollmentToken! };
  };
  /** An enrolled edge router: its client chain and key. */
  const enrolledEdge = async () => {
    const { rid, token } = await pendingEdge();
    const csrs = await routerCsrs(rid);
    const reply = await enroll(token, { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr });
    if (reply.status !== 200) throw new Error(`router enrollment failed: ${reply.text}`);
    return { rid, chain: pemCertificates(reply.body.data.cert), keys: csrs.keys };
  };
  /** A router's tunneler flag with its identity and system policy replies. */
  const tunnelerState = async (rid: string) => ({
    router: (await admin.ok('detailEdgeRouter', { path: { id: rid } })).data,
    identity: await admin.call('detailIdentity', { path: { id: rid } }),
    policy: await admin.call('detailEdgeRouterPolicy', { path: { id: rid } }),
  });
  return { admin, enrollApi, tunnelerState, edgeRouter, transitRouter, enroll, pendingEdge, enrolledEdge };
}

function leaf(reply: Reply, field: 'cert' | 'serverCert'): x509.X509Certificate {
  return pemCertificates(reply.body.data[field])[0];
}

function sansOf(cert: x509.X509Certificate) {
  return cert.getExtension(x509.SubjectAlternativeNameExtension)?.names.toJSON() ?? [];
}

/** Edge-router and transit-router enrollment (reference auth-and-pki §5.1, §5.8, §6.2), tunneler-enabled routers (model-and-policies §9.2). */
const routerEnrollmentSuite: Suite = ({ client, db }) => {
  const api = routerApi(client);
  const { admin } = api;

  describe('router enrollments', () => {
    it('a new edge router shows its erott enrollment: token, signed JWT naming the router, times; /enrollments lists it', async () => {
      const rid = await api.edgeRouter();
      const detail = expectConforms(await admin.call('detailEdgeRouter', { path: { id: rid } }), 'detailEdgeRouter').body.data;
      expect(detail).toMatchObject({ isVerified: false, fingerprint: '', certPem: null });
      const claims = decodeJwt(detail.enrollmentJwt!);
      expect(claims).toMatchObject({ iss: 'https://localhost:1280', sub: rid, aud: [''], em: 'erott', jti: detail.enrollmentToken });
      expect(claims.exp! * 1000).toBe(Math.floor(Date.parse(detail.enrollmentExpiresAt!) / 1000) * 1000);
      const minutes = (Date.parse(detail.enrollmentExpiresAt!) - Date.parse(detail.enrollmentCreatedAt!)) / 60_000;
      expect(minutes).toBe(180);

      const listed = expectConforms(await admin.call('listEnrollments', { query: { filter: `edgeRouter = "${rid}"` } }), 'listEnrollments').body.data;
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({ method: 'erott', edgeRouterId: rid, edgeRouter: { id: rid, entity: 'edge-routers' }, token: detail.enrollmentToken, jwt: detail.enrollmentJwt });
      expect(listed[0]).not.toHaveProperty('identityId');
      // The list renders the same fields.
      const inList = (await admin.ok('listEdgeRouters', { query: { filter: `id = "${rid}"` } })).data[0];
      expect(inList.enrollmentToken).toBe(detail.enrollmentToken);
    });

    it('an edge router enrolls as a router does: client and server certificates by the router profiles, the CA bundle; the router is verified', async () => {
      const { rid, token } = await api.pendingEdge();
      const csrs = await routerCsrs(rid);
      const reply = expectConforms(await api.enroll(token, { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr }), 'enroll', 'client');
      const { ca, cert, serverCert } = reply.body.data;
      for (const pem of [ca, cert, serverCert]) expect(pem).toMatch(/-----BEGIN CERTIFICATE-----/);

      const bundle = cacertsBundle((await client().request(`${CLIENT}/.well-known/est/cacerts`)).text);
      const caPems = pemCertificates(ca);
      expect(caPems.map((c) => c.subject).sort()).toEqual(bundle.map((c) => c.subject).sort());
      const [clientLeaf, signer] = pemCertificates(cert);
      const serverLeaf = leaf(reply, 'serverCert');
      expect(pemCertificates(serverCert)[1].equal(signer)).toBe(true);
      expect(bundle.some((c) => c.equal(signer))).toBe(true);
      for (const c of [clientLeaf, serverLeaf]) {
        expect(await c.verify({ publicKey: signer.publicKey, signatureOnly: true })).toBe(true);
        expect(c.getExtension(x509.BasicConstraintsExtension)).toBeNull();
        expect(c.getExtension(x509.KeyUsagesExtension)!.critical).toBe(true);
        const days = (c.notAfter.getTime() - c.notBefore.getTime()) / 86_400_000;
        expect(days).toBeGreaterThan(364);
        expect(days).toBeLessThan(367);
        // SANs from the CSR (DNS, IP), but no SPIFFE id.
        expect(sansOf(c)).toEqual([
          { type: 'dns', value: 'router.example.test' },
          { type: 'ip', value: '127.0.0.1' },
        ]);
      }
      expect(clientLeaf.getExtension(x509.ExtendedKeyUsageExtension)!.usages).toEqual([x509.ExtendedKeyUsage.clientAuth]);
      expect(serverLeaf.getExtension(x509.ExtendedKeyUsageExtension)!.usages).toEqual([x509.ExtendedKeyUsage.serverAuth]);
      expect(clientLeaf.subjectName.getField('CN')).toEqual([rid]);
      expect(clientLeaf.subjectName.getField('O')).toEqual(['NetFoundry']);

      const detail = (await admin.ok('detailEdgeRouter', { path: { id: rid } })).data;
      expect(detail).toMatchObject({ isVerified: true, fingerprint: await sha1Hex(clientLeaf.rawData), enrollmentToken: null, enrollmentJwt: null, enrollmentCreatedAt: null, enrollmentExpiresAt: null });
      expect(pemCertificates(detail.certPem!)[0].equal(clientLeaf)).toBe(true);
      expect((await admin.ok('listEnrollments', { query: { filter: `edgeRouter = "${rid}"` } })).data).toEqual([]);
      // The token is spent.
      expectError(await api.enroll(token, { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr }), 400, 'INVALID_ENROLLMENT_TOKEN');
    });

    it('refuses missing and unusable CSRs, a wrong method and an expired token; a refused attempt spends nothing', async () => {
      const { rid, token } = await api.pendingEdge();
      const csrs = await routerCsrs(rid);
      const cause = (r: Reply) => r.body.error.cause.message as string;
      expect(cause(expectError(await api.enroll(token, { certCsr: csrs.certCsr }), 400, 'MISSING_OR_INVALID_CSR'))).toBe('invalid server CSR');
      expect(cause(expectError(await api.enroll(token, { serverCertCsr: csrs.serverCertCsr }), 400, 'MISSING_OR_INVALID_CSR'))).toBe('invalid client CSR');
      expect(cause(expectError(await api.enroll(token, { certCsr: csrs.certCsr, serverCertCsr: 'not a csr' }), 400, 'COULD_NOT_PROCESS_CSR'))).toMatch(/^invalid server CSR/);
      // The client certificate's common name must be the router id.
      const stranger = await routerCsrs('someone-else');
      expect(cause(expectError(await api.enroll(token, { certCsr: stranger.certCsr, serverCertCsr: csrs.serverCertCsr }), 400, 'COULD_NOT_PROCESS_CSR'))).toMatch(/^invalid client CSR/);
      // A PEM body (legacy mode) carries no server CSR.
      expectError(await client().request(`${CLIENT}/enroll?method=erott&token=${token}`, { raw: csrs.certCsr, headers: { 'content-type': 'application/x-pem-file' } }), 400, 'MISSING_OR_INVALID_CSR');
      expectError(await api.enroll(token, { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr }, 'ott'), 400, 'INVALID_ENROLL_METHOD');
      expectError(await api.enroll(token, { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr }, 'trott'), 400, 'INVALID_ENROLL_METHOD');
      expectError(await api.enroll(crypto.randomUUID(), { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr }), 400, 'INVALID_ENROLLMENT_TOKEN');
      // An identity's ott token is not a router's.
      const iid = (await admin.ok('createIdentity', { body: { name: uniqueName('id'), isAdmin: false, type: 'User', enrollment: { ott: true } } })).data!.id!;
      const ott = (await admin.ok('detailIdentity', { path: { id: iid } })).data.enrollment.ott!.token!;
      expectError(await api.enroll(ott, { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr }), 400, 'INVALID_ENROLL_METHOD');
      expect((await admin.ok('detailEdgeRouter', { path: { id: rid } })).data).toMatchObject({ isVerified: false, fingerprint: '', enrollmentToken: token });

      // Expired: the store says so.
      const other = await api.pendingEdge();
      await db().update(enrollments).set({ expiresAt: Date.now() - 1000 }).where(eq(enrollments.edgeRouterId, other.rid));
      const late = await routerCsrs(other.rid);
      expectError(await api.enroll(other.token, { certCsr: late.certCsr, serverCertCsr: late.serverCertCsr }), 400, 'ENROLLMENT_EXPIRED');
      expect((await admin.ok('detailEdgeRouter', { path: { id: other.rid } })).data.isVerified).toBe(false);

      // After all that, the first token still enrolls its router.
      expect((await api.enroll(token, { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr })).status).toBe(200);
    });

    it('POST /enroll/erott takes {token, clientCsr, serverCsr}; a body without the server CSR is refused', async () => {
      const { rid, token } = await api.pendingEdge();
      const csrs = await routerCsrs(rid, { sans: [] });
      expectError(await api.enrollApi.call('enrollErOtt', { body: { token, clientCsr: csrs.certCsr } }), 400, 'MISSING_OR_INVALID_CSR');
      const reply = expectConforms(await api.enrollApi.call('enrollErOtt', { body: { token, clientCsr: csrs.certCsr, serverCsr: csrs.serverCertCsr } }), 'enrollErOtt', 'client');
      expect(sansOf(leaf(reply, 'serverCert'))).toEqual([]);
      expect((await admin.ok('detailEdgeRouter', { path: { id: rid } })).data.fingerprint).toBe(await sha1Hex(leaf(reply, 'cert').rawData));
    });

    it('a transit router enrolls with trott: the client certificate is named after the router whatever the CSR says', async () => {
      const rid = await api.transitRouter();
      const detail = expectConforms(await admin.call('detailTransitRouter', { path: { id: rid } }), 'detailTransitRouter').body.data;
      // Not enrolled yet: no fingerprint (null, as controller v1.6.2 renders it; edge routers render "").
      expect(detail).toMatchObject({ isVerified: false, fingerprint: null });
      expect(decodeJwt(detail.enrollmentJwt!)).toMatchObject({ sub: rid, em: 'trott', jti: detail.enrollmentToken });
      expect((await admin.ok('detailRouter', { path: { id: rid } })).data.enrollmentToken).toBe(detail.enrollmentToken);
      const token = detail.enrollmentToken!;
      const csrs = await routerCsrs('whatever-name');
      expectError(await api.enroll(token, { certCsr: csrs.certCsr }, 'trott'), 400, 'COULD_NOT_PROCESS_CSR');
      expectError(await api.enroll(token, { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr }, 'erott'), 400, 'INVALID_ENROLL_METHOD');
      // No method: the enrollment's own.
      const reply = await client().request(`${CLIENT}/enroll?token=${token}`, { body: { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr } });
      expect(reply.status, reply.text).toBe(200);
      const clientLeaf = leaf(reply, 'cert');
      expect(clientLeaf.subjectName.getField('CN')).toEqual([rid]);
      expect(clientLeaf.subjectName.getField('OU')).toEqual(['Ziti']);
      expect(reply.body.data.ca).toMatch(/BEGIN CERTIFICATE/);
      const after = expectConforms(await admin.call('detailTransitRouter', { path: { id: rid } }), 'detailTransitRouter').body.data;
      expect(after).toMatchObject({ isVerified: true, fingerprint: await sha1Hex(clientLeaf.rawData), enrollmentToken: null });
      expect((await admin.ok('detailRouter', { path: { id: rid } })).data.fingerprint).toBe(after.fingerprint);
      expect((await admin.ok('listTransitRouters', { query: { filter: `fingerprint = "${after.fingerprint}"` } })).data.map((r) => r.id)).toEqual([rid]);
    });

    it('a router enrollment is refreshed like any other (new token, old one dead) and deleted with its router', async () => {
      const { rid, token } = await api.pendingEdge();
      const enrollmentId = (await admin.ok('listEnrollments', { query: { filter: `edgeRouter = "${rid}"` } })).data[0].id!;
      await admin.ok('refreshEnrollment', { path: { id: enrollmentId }, body: { expiresAt: new Date(Date.now() + 3_600_000).toISOString() } });
      const fresh = (await admin.ok('detailEdgeRouter', { path: { id: rid } })).data;
      expect(fresh.enrollmentToken).not.toBe(token);
      expect(decodeJwt(fresh.enrollmentJwt!)).toMatchObject({ sub: rid, em: 'erott', jti: fresh.enrollmentToken });
      const csrs = await routerCsrs(rid);
      expectError(await api.enroll(token, { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr }), 400, 'INVALID_ENROLLMENT_TOKEN');
      await admin.ok('deleteEdgeRouter', { path: { id: rid } });
      expectNotFound(await admin.call('detailEnrollment', { path: { id: enrollmentId } }), 'enrollment', enrollmentId);
      expectError(await api.enroll(fresh.enrollmentToken!, { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr }), 400, 'INVALID_ENROLLMENT_TOKEN');

      const tid = await api.transitRouter();
      const tEnrollment = (await admin.ok('listEnrollments', { query: { filter: `transitRouter = "${tid}"` } })).data[0];
      expect(tEnrollment).toMatchObject({ method: 'trott', transitRouterId: tid, transitRouter: { id: tid, entity: 'transit-routers' } });
      await admin.ok('deleteTransitRouter', { path: { id: tid } });
      expect((await admin.ok('listEnrollments', { query: { filter: `transitRouter = "${tid}"` } })).data).toEqual([]);
    });
  });

  describe('edge router re-enrollment', () => {
    it('replaces the enrollment (the previous token dies) and forgets the certificate: not verified, no fingerprint', async () => {
      const { rid } = await api.enrolledEdge();
      expect((await admin.ok('detailEdgeRouter', { path: { id: rid } })).data.isVerified).toBe(true);
      expectConforms(await admin.call('reEnrollEdgeRouter', { path: { id: rid } }), 'reEnrollEdgeRouter');
      const first = (await admin.ok('detailEdgeRouter', { path: { id: rid } })).data;
      expect(first).toMatchObject({ isVerified: false, fingerprint: '', certPem: null });
      expect(first.enrollmentToken).toMatch(/^[0-9a-f-]{36}$/);
      // A second re-enrollment before the router enrolls replaces the pending one.
      await admin.ok('reEnrollEdgeRouter', { path: { id: rid } });
      const second = (await admin.ok('detailEdgeRouter', { path: { id: rid } })).data;
      expect(second.enrollmentToken).not.toBe(first.enrollmentToken);
      expect((await admin.ok('listEnrollments', { query: { filter: `edgeRouter = "${rid}"` } })).data.map((e) => e.token)).toEqual([second.enrollmentToken]);
      const csrs = await routerCsrs(rid);
      expectError(await api.enroll(first.enrollmentToken!, { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr }), 400, 'INVALID_ENROLLMENT_TOKEN');
      expect((await api.enroll(second.enrollmentToken!, { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr })).status).toBe(200);
      expectNotFound(await admin.call('reEnrollEdgeRouter', { path: { id: 'nope' } }), 'edgeRouter', 'nope');
    });

  });

  describe('tunneler-enabled edge routers', () => {
    const tunnelerState = (rid: string) => api.tunnelerState(rid);

    it('creates the router identity (router id and name, type Router) and the system policy linking it to the router', async () => {
      const name = uniqueName('tun');
      const rid = await api.edgeRouter({ name, isTunnelerEnabled: true });
      const { router, identity, policy } = await tunnelerState(rid);
      expect(router.isTunnelerEnabled).toBe(true);
      expect(expectConforms(identity, 'detailIdentity').body.data).toMatchObject({ id: rid, name, typeId: 'Router', isAdmin: false, authPolicyId: 'default', enrollment: {}, authenticators: {} });
      expect(expectConforms(policy, 'detailEdgeRouterPolicy').body.data).toMatchObject({ id: rid, name: `edge-router-${rid}-system`, isSystem: true, semantic: 'AnyOf', identityRoles: [`@${rid}`], edgeRouterRoles: [`@${rid}`] });
      expect((await admin.ok('listEdgeRouterPolicyIdentities', { path: { id: rid } })).data.map((i) => i.id)).toEqual([rid]);
      expect((await admin.ok('listEdgeRouterPolicyEdgeRouters', { path: { id: rid } })).data.map((r) => r.id)).toEqual([rid]);
      expect((await admin.ok('listIdentityEdgeRouters', { path: { id: rid } })).data.map((r) => r.id)).toEqual([rid]);
      expect((await admin.ok('listIdentities', { query: { filter: `type = "Router" and id = "${rid}"` } })).data).toHaveLength(1);
    });

    it('protects the system policy and the identity: no edit, no delete, no rename, no authenticator; attributes are allowed', async () => {
      const rid = await api.edgeRouter({ isTunnelerEnabled: true });
      expectError(await admin.call('patchEdgeRouterPolicy', { path: { id: rid }, body: { semantic: 'AllOf' } }), 400, 'ENTITY_CAN_NOT_BE_UPDATED');
      expectError(await admin.call('deleteEdgeRouterPolicy', { path: { id: rid } }), 400, 'ENTITY_CAN_NOT_BE_DELETED');
      const refused = expectError(await admin.call('deleteIdentity', { path: { id: rid } }), 400, 'ENTITY_CAN_NOT_BE_DELETED');
      expect(refused.body.error.cause.message).toMatch(/^cannot delete router identity .* until associated router is deleted$/);
      expectFieldError(await admin.call('patchIdentity', { path: { id: rid }, body: { name: uniqueName('renamed') } }), 400, 'name');
      expectFieldError(await admin.call('createAuthenticator', { body: { method: 'updb', identityId: rid, username: uniqueName('u'), password: 'router-pass-1' } }), 400, 'identityId');
      expectFieldError(await admin.call('createEnrollment', { body: { method: 'ott', identityId: rid, expiresAt: new Date(Date.now() + 3_600_000).toISOString() } }), 400, 'identityId');
      const attr = uniqueName('attr');
      await admin.ok('patchIdentity', { path: { id: rid }, body: { roleAttributes: [attr] } });
      const service = (await admin.ok('createService', { body: { name: uniqueName('svc'), encryptionRequired: true } })).data!.id!;
      const sp = (await admin.ok('createServicePolicy', { body: { name: uniqueName('sp'), type: 'Bind', semantic: 'AnyOf', identityRoles: [`#${attr}`], serviceRoles: [`@${service}`] } })).data!.id!;
      expect((await admin.ok('listServicePolicyIdentities', { path: { id: sp } })).data.map((i) => i.id)).toEqual([rid]);
      const { policy } = await tunnelerState(rid);
      expect(policy.status).toBe(200);
    });

    it('renaming the router renames its identity; a name another identity holds is refused and changes nothing', async () => {
      const rid = await api.edgeRouter({ isTunnelerEnabled: true });
      const renamed = uniqueName('renamed');
      await admin.ok('patchEdgeRouter', { path: { id: rid }, body: { name: renamed } });
      expect((await admin.ok('detailIdentity', { path: { id: rid } })).data.name).toBe(renamed);

      const taken = (await admin.ok('createIdentity', { body: { name: uniqueName('taken'), isAdmin: false, type: 'User' } })).data!.id!;
      const takenName = (await admin.ok('detailIdentity', { path: { id: taken } })).data.name;
      expectFieldError(await admin.call('patchEdgeRouter', { path: { id: rid }, body: { name: takenName } }), 400, 'name');
      expect((await admin.ok('detailEdgeRouter', { path: { id: rid } })).data.name).toBe(renamed);
      expectFieldError(await admin.call('createEdgeRouter', { body: { name: takenName, isTunnelerEnabled: true } }), 400, 'name');
      expect((await admin.ok('listEdgeRouters', { query: { filter: `name = "${takenName}"` } })).data).toEqual([]);
      // Without the tunneler the router may share a name with an identity.
      const plain = await api.edgeRouter({ name: takenName });
      expectFieldError(await admin.call('patchEdgeRouter', { path: { id: plain }, body: { isTunnelerEnabled: true } }), 400, 'name');
      expect((await tunnelerState(plain)).identity.status).toBe(404);
    });

    it('toggling the tunneler off removes the identity (and its @id in policies) and the system policy; on again recreates them; delete removes them', async () => {
      const rid = await api.edgeRouter();
      expect((await tunnelerState(rid)).identity.status).toBe(404);
      await admin.ok('patchEdgeRouter', { path: { id: rid }, body: { isTunnelerEnabled: true } });
      let state = await tunnelerState(rid);
      expect([state.identity.status, state.policy.status]).toEqual([200, 200]);
      const erp = (await admin.ok('createEdgeRouterPolicy', { body: { name: uniqueName('erp'), semantic: 'AnyOf', identityRoles: [`@${rid}`], edgeRouterRoles: [`@${rid}`] } })).data!.id!;

      await admin.ok('patchEdgeRouter', { path: { id: rid }, body: { isTunnelerEnabled: false } });
      state = await tunnelerState(rid);
      expect(state.router.isTunnelerEnabled).toBe(false);
      expectNotFound(state.identity, 'identity', rid);
      expectNotFound(state.policy, 'edgeRouterPolicy', rid);
      expect((await admin.ok('detailEdgeRouterPolicy', { path: { id: erp } })).data.identityRoles).toBeNull();
      expect((await admin.ok('listIdentityEdgeRouters', { path: { id: rid } })).data).toEqual([]);

      // PUT writes every property: the tunneler is on only when it says so.
      await admin.ok('updateEdgeRouter', { path: { id: rid }, body: { name: uniqueName('er'), isTunnelerEnabled: true } });
      state = await tunnelerState(rid);
      expect([state.router.isTunnelerEnabled, state.identity.status, state.policy.status]).toEqual([true, 200, 200]);
      expect((await admin.ok('listEdgeRouterPolicyIdentities', { path: { id: rid } })).data.map((i) => i.id)).toEqual([rid]);

      await admin.ok('deleteEdgeRouter', { path: { id: rid } });
      expectNotFound(await admin.call('detailIdentity', { path: { id: rid } }), 'identity', rid);
      expectNotFound(await admin.call('detailEdgeRouterPolicy', { path: { id: rid } }), 'edgeRouterPolicy', rid);
      expect((await admin.ok('listEdgeRouterPolicies', { query: { filter: `name = "edge-router-${rid}-system"` } })).data).toEqual([]);
      // `#all` would reach the routers of later suites sharing this store.
      await admin.ok('deleteEdgeRouterPolicy', { path: { id: erp } });
    });

  });
};

export default routerEnrollmentSuite;

/**
 * `POST /enroll/extend/router` (reference §6.6) over a connection presenting a client certificate: run by
 * test/node/router-enrollment.test.ts and test/workers/router-enrollment.test.ts with each runtime's way
 * of presenting one.
 */
export function routerExtendSuite(client: () => TestClient, presenter: () => CertPresenter) {
  const api = routerApi(client);
  const { admin } = api;
  const extend = (chain: x509.X509Certificate[], body: Record<string, unknown>) => presenter().client(chain).request(`${CLIENT}/enroll/extend/router`, { body });

  describe('router certificate extension', () => {
    it('a router extends with its current certificate: new client and server certificates (no ca), the old certificate stops naming it', async () => {
      const { rid, chain } = await api.enrolledEdge();
      const csrs = await routerCsrs(rid);
      const reply = expectConforms(await extend(chain, { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr }), 'extendRouterEnrollment', 'client');
      expect(reply.body.data).not.toHaveProperty('ca');
      const next = pemCertificates(reply.body.data.cert);
      expect(next[0].subjectName.getField('CN')).toEqual([rid]);
      expect(leaf(reply, 'serverCert').getExtension(x509.ExtendedKeyUsageExtension)!.usages).toEqual([x509.ExtendedKeyUsage.serverAuth]);
      const detail = (await admin.ok('detailEdgeRouter', { path: { id: rid } })).data;
      expect(detail.fingerprint).toBe(await sha1Hex(next[0].rawData));
      expect(pemCertificates(detail.certPem!)[0].equal(next[0])).toBe(true);
      // The old certificate no longer extends; the new one does.
      expectError(await extend(chain, { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr }), 401, 'UNAUTHORIZED');
      expect((await extend(next, { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr })).status).toBe(200);
    });

    it('refuses no certificate, a certificate that is no router\'s, missing CSRs and a client CSR naming another router; nothing changes', async () => {
      const { rid, chain } = await api.enrolledEdge();
      const csrs = await routerCsrs(rid);
      const before = (await admin.ok('detailEdgeRouter', { path: { id: rid } })).data.fingerprint;
      expectError(await client().request(`${CLIENT}/enroll/extend/router`, { body: { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr } }), 401, 'UNAUTHORIZED');
      // An identity's certificate from the same CA is not a router's.
      const iid = (await admin.ok('createIdentity', { body: { name: uniqueName('id'), isAdmin: false, type: 'User', enrollment: { ott: true } } })).data!.id!;
      const ott = (await admin.ok('detailIdentity', { path: { id: iid } })).data.enrollment.ott!.token!;
      const device = await client().request(`${CLIENT}/enroll?method=ott&token=${ott}`, { raw: (await newCsr(iid)).csrPem, headers: { 'content-type': 'text/plain' } });
      expectError(await extend(pemCertificates(device.body.data.cert), { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr }), 401, 'UNAUTHORIZED');
      expectError(await extend(chain, { certCsr: csrs.certCsr }), 400, 'COULD_NOT_VALIDATE');
      expectError(await extend(chain, { serverCertCsr: csrs.serverCertCsr }), 400, 'COULD_NOT_VALIDATE');
      const stranger = await routerCsrs('another-router');
      expectError(await extend(chain, { certCsr: stranger.certCsr, serverCertCsr: csrs.serverCertCsr }), 400, 'COULD_NOT_PROCESS_CSR');
      expect((await admin.ok('detailEdgeRouter', { path: { id: rid } })).data.fingerprint).toBe(before);
      expect((await extend(chain, { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr })).status).toBe(200);
    });

    it('after a re-enrollment the previous certificate extends nothing', async () => {
      const { rid, chain } = await api.enrolledEdge();
      await admin.ok('reEnrollEdgeRouter', { path: { id: rid } });
      const csrs = await routerCsrs(rid);
      expectError(await extend(chain, { certCsr: csrs.certCsr, serverCertCsr: csrs.serverCertCsr }), 401, 'UNAUTHORIZED');
      expect((await admin.ok('detailEdgeRouter', { path: { id: rid } })).data).toMatchObject({ isVerified: false, fingerprint: '' });
    });

    it('a transit router extends too: its CSR must now carry its id as common name', async () => {
      const rid = await api.transitRouter();
      const token = (await admin.ok('detailTransitRouter', { path: { id: rid } })).data.enrollmentToken!;
      const first = await routerCsrs(rid);
      const enrolled = await api.enroll(token, { certCsr: first.certCsr, serverCertCsr: first.serverCertCsr }, 'trott');
      const chain = pemCertificates(enrolled.body.data.cert);
      const named = await routerCsrs('not-the-id');
      expectError(await extend(chain, { certCsr: named.certCsr, serverCertCsr: named.serverCertCsr }), 400, 'COULD_NOT_PROCESS_CSR');
      const reply = await extend(chain, { certCsr: first.certCsr, serverCertCsr: first.serverCertCsr });
      expect(reply.status, reply.text).toBe(200);
      expect((await admin.ok('detailTransitRouter', { path: { id: rid } })).data.fingerprint).toBe(await sha1Hex(leaf(reply, 'cert').rawData));
    });

    it(`of ${N} concurrent extensions with one certificate exactly one applies; the rest are 401`, async () => {
      const { rid, chain } = await api.enrolledEdge();
      const all = await Promise.all(Array.from({ length: N }, () => routerCsrs(rid)));
      const replies = await Promise.all(all.map((c) => extend(chain, { certCsr: c.certCsr, serverCertCsr: c.serverCertCsr })));
      const won = replies.filter((r) => r.status === 200);
      expect(won).toHaveLength(1);
      for (const r of replies.filter((x) => x.status !== 200)) expectError(r, 401, 'UNAUTHORIZED');
      expect((await admin.ok('detailEdgeRouter', { path: { id: rid } })).data.fingerprint).toBe(await sha1Hex(leaf(won[0], 'cert').rawData));
    });
  });
}

/**
 * The "at most once" rules of router enrollment under 50 concurrent requests. They run from
 * test/node/router-enrollment.test.ts and test/workers/router-enrollment.test.ts, each with an app of its
 * own, as the identity enrollment races do (enrollment-concurrency.suite.ts).
 */
export function routerConcurrencySuite(client: () => TestClient) {
  const api = routerApi(client);
  const { admin } = api;

  describe(`router enrollment rules under ${N} concurrent requests`, () => {
    it(`the token is consumed exactly once under ${N} concurrent enrollments: one success, ${N - 1} INVALID_ENROLLMENT_TOKEN, the winner's certificate recorded`, async () => {
      const { rid, token } = await api.pendingEdge();
      const all = await Promise.all(Array.from({ length: N }, () => routerCsrs(rid)));
      const replies = await Promise.all(all.map((c) => api.enroll(token, { certCsr: c.certCsr, serverCertCsr: c.serverCertCsr })));
      const won = replies.filter((r) => r.status === 200);
      expect(won).toHaveLength(1);
      const refused = replies.filter((r) => r.status !== 200);
      expect(refused).toHaveLength(N - 1);
      for (const r of refused) expectError(r, 400, 'INVALID_ENROLLMENT_TOKEN');
      const detail = (await admin.ok('detailEdgeRouter', { path: { id: rid } })).data;
      expect(detail.fingerprint).toBe(await sha1Hex(leaf(won[0], 'cert').rawData));
      expect(detail.isVerified).toBe(true);
    });

    it(`${N} concurrent re-enrollments leave exactly one pending enrollment`, async () => {
      const { rid } = await api.enrolledEdge();
      const replies = await Promise.all(Array.from({ length: N }, () => admin.call('reEnrollEdgeRouter', { path: { id: rid } })));
      expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
      const pending = (await admin.ok('listEnrollments', { query: { filter: `edgeRouter = "${rid}"` } })).data;
      expect(pending).toHaveLength(1);
      expect((await admin.ok('detailEdgeRouter', { path: { id: rid } })).data).toMatchObject({ isVerified: false, enrollmentToken: pending[0].token });
    });

    it(`${N} concurrent toggles leave the flag, the identity and the system policy in agreement`, async () => {
      const rid = await api.edgeRouter();
      const replies = await Promise.all(Array.from({ length: N }, (_, i) => admin.call('patchEdgeRouter', { path: { id: rid }, body: { isTunnelerEnabled: i % 2 === 0 } })));
      expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200));
      const { router, identity, policy } = await api.tunnelerState(rid);
      const on = router.isTunnelerEnabled;
      expect([identity.status, policy.status]).toEqual(on ? [200, 200] : [404, 404]);
      expect((await admin.ok('listIdentityEdgeRouters', { path: { id: rid } })).data.map((r) => r.id)).toEqual(on ? [rid] : []);
      expect((await admin.ok('listIdentities', { query: { filter: `id = "${rid}"` } })).data).toHaveLength(on ? 1 : 0);
    });
  });
}

/** Passwords this suite sends: the Node secrets check proves no reply or log line repeats them. */
export const secrets = ['router-pass-1'];
