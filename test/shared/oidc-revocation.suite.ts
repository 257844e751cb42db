import { describe, expect, it } from 'vitest';
import { oidcRevocations } from '../../src/db/schema/index.js';
import { CLIENT, MGMT } from '../helpers/client.js';
import { TypedApi, type ManagementOperations } from '../helpers/typed-api.js';
import { storeFixtures, unique } from './auth-fixtures.js';
import { bearer, claims, OidcClient, within } from './oidc-fixtures.js';
import type { Suite } from './suite.js';

export const secrets = ['oidc-revoke-Passw0rd!'];
const PASSWORD = 'oidc-revoke-Passw0rd!';
/** The revocation poll of both test runtimes (ZITI_OIDC_REVOCATION_POLL_MS): the stated bound. */
const BOUND_MS = 1_000;

/**
 * Access tokens are checked without a store read, yet every revocation cause stops them within the stated
 * bound on every instance (reference oidc.md §8, §12.4; ADR 0009): logout, identity disable and delete,
 * authenticator removal, admin session deletion, a change of the admin flag, and a revocation written by
 * another instance. Refresh tokens of an ended session are refused at once. Node and workerd.
 */
const oidcRevocationSuite: Suite = ({ client, db }) => {
  const oidc = new OidcClient(client);
  let adminToken = '';
  const admin = new TypedApi<ManagementOperations>(client, 'management', () => adminToken);

  async function loggedIn(options: { isAdmin?: boolean } = {}) {
    adminToken ||= await client().login();
    const username = unique('oidcr');
    const ids = await storeFixtures(db()).createUser({ username, password: PASSWORD, ...options });
    const t = await oidc.passwordTokens(username, PASSWORD);
    return { ...ids, username, t };
  }
  const works = async (token: string, path = `${CLIENT}/current-identity`) => (await bearer(client(), path, token)).status === 200;
  /** How long the token took to stop working (ms); fails when it outlived the bound. */
  async function stops(token: string, path?: string): Promise<number> {
    const ms = await within(BOUND_MS, async () => !(await works(token, path)));
    expect(ms, 'the token outlived the revocation bound').toBeGreaterThanOrEqual(0);
    expect(ms).toBeLessThanOrEqual(BOUND_MS + 1_000);
    return ms;
  }

  describe('each cause stops the token within the bound', () => {
    it('logout (DELETE /current-api-session with the token) ends the session: tokens and refresh refused at once', async () => {
      const { t } = await loggedIn();
      const other = await oidc.exchange(t.access_token, 'access_token', 'access_token', 'openziti');
      expect(await works(other.body.access_token)).toBe(true);
      const out = await bearer(client(), `${CLIENT}/current-api-session`, t.access_token, { method: 'DELETE' });
      expect(out.status).toBe(200);
      expect(await works(t.access_token)).toBe(false);
      expect(await works(other.body.access_token)).toBe(false);
      expect((await oidc.refresh(t.refresh_token!)).body.error).toBe('invalid_grant');
    });

    it('identity disable: tokens stop, refresh and new logins are refused; after enable a new login works', async () => {
      const u = await loggedIn();
      expect((await admin.call('disableIdentity', { path: { id: u.identityId }, body: { durationMinutes: 0 } })).status).toBe(200);
      expect((await oidc.refresh(u.t.refresh_token!)).body.error).toBe('invalid_grant');
      await stops(u.t.access_token);
      await expect(oidc.passwordTokens(u.username, PASSWORD)).rejects.toThrow(/401/);
      expect((await admin.call('enableIdentity', { path: { id: u.identityId } })).status).toBe(200);
      const again = await oidc.passwordTokens(u.username, PASSWORD);
      expect(await works(again.access_token)).toBe(true);
      // The old tokens stay refused.
      expect(await works(u.t.access_token)).toBe(false);
      expect((await oidc.refresh(u.t.refresh_token!)).status).toBe(400);
    });

    it('identity delete', async () => {
      const u = await loggedIn();
      expect((await admin.call('deleteIdentity', { path: { id: u.identityId } })).status).toBe(200);
      await stops(u.t.access_token);
      expect((await oidc.refresh(u.t.refresh_token!)).body.error).toBe('invalid_grant');
    });

    it('authenticator removal', async () => {
      const u = await loggedIn();
      expect(claims(u.t.access_token).z_authid).toBe(u.authenticatorId);
      expect((await admin.call('deleteAuthenticator', { path: { id: u.authenticatorId } })).status).toBe(200);
      expect((await oidc.refresh(u.t.refresh_token!)).body.error).toBe('invalid_grant');
      await stops(u.t.access_token);
    });

    it('admin session deletion (DELETE /api-sessions/{z_asid})', async () => {
      const u = await loggedIn();
      const asid = claims(u.t.access_token).z_asid;
      const session = await bearer(client(), `${CLIENT}/current-api-session`, u.t.access_token);
      expect(session.body.data.id).toBe(asid);
      expect((await admin.call('deleteAPISessions', { path: { id: asid } })).status).toBe(200);
      await stops(u.t.access_token);
      expect((await oidc.refresh(u.t.refresh_token!)).body.error).toBe('invalid_grant');
      // Once ended, it is gone.
      expect((await admin.call('deleteAPISessions', { path: { id: asid } })).status).toBe(404);
      expect((await admin.call('deleteAPISessions', { path: { id: crypto.randomUUID() } })).status).toBe(404);
    });

    it('a change of the admin flag: the admin token stops, a refresh gives a token without admin rights', async () => {
      const u = await loggedIn({ isAdmin: true });
      expect(claims(u.t.access_token).z_ia).toBe(true);
      expect(await works(u.t.access_token, `${MGMT}/identities?limit=1`)).toBe(true);
      expect((await admin.call('patchIdentity', { path: { id: u.identityId }, body: { isAdmin: false } })).status).toBe(200);
      await stops(u.t.access_token);
      const r = await oidc.refresh(u.t.refresh_token!);
      expect(r.status, r.text).toBe(200);
      expect(claims(r.body.access_token).z_ia).toBeUndefined();
      expect(await works(r.body.access_token)).toBe(true);
      expect((await bearer(client(), `${MGMT}/identities?limit=1`, r.body.access_token)).status).toBe(401);
    });

    it('a revocation written by another instance reaches this one within the bound', async () => {
      const u = await loggedIn();
      const asid = claims(u.t.access_token).z_asid;
      // Warm this instance's copy, then append as another instance would (straight into the store).
      expect(await works(u.t.access_token)).toBe(true);
      const written = Date.now();
      await db().insert(oidcRevocations).values({ kind: 'session', subject: asid, notBefore: 253_402_300_799_999, createdAt: written });
      const ms = await stops(u.t.access_token);
      expect(ms).toBeLessThanOrEqual(BOUND_MS + 500);
    });
  });

  it('a token of a revoked session is refused on every authenticated operation of both APIs, and by userinfo', async () => {
    const u = await loggedIn();
    await bearer(client(), `${CLIENT}/current-api-session`, u.t.access_token, { method: 'DELETE' });
    for (const path of [`${CLIENT}/current-api-session`, `${MGMT}/current-identity`, `${CLIENT}/current-identity/authenticators`, '/oidc/userinfo']) {
      expect((await bearer(client(), path, u.t.access_token)).status, path).toBe(401);
    }
  });
};

export default oidcRevocationSuite;
