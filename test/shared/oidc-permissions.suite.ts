import { describe, expect, it } from 'vitest';
import type { OperationSpec } from '../../src/http/operation.js';
import type { Reply } from '../helpers/client.js';
import { apis, type ApiKey } from '../helpers/spec-schemas.js';
import { storeFixtures, unique } from './auth-fixtures.js';
import { OidcClient } from './oidc-fixtures.js';
import type { Suite } from './suite.js';

export const secrets = ['oidc-perm-Passw0rd!'];
const PASSWORD = 'oidc-perm-Passw0rd!';
/** Would end the caller's session in the middle of the walk. */
const DESTRUCTIVE = new Set(['deleteCurrentApiSession']);
/** Operations whose own credential is a client certificate: they may answer 401 for that reason alone. */
const OWN_CREDENTIAL_401 = new Set(['extendRouterEnrollment', 'extendCurrentIdentityAuthenticator']);

/**
 * A bearer access token obeys the same permission matrix as a `zt-session` of the same identity, on every
 * operation of both APIs that needs a session (docs/auth.md): refused exactly where the session is refused,
 * for an admin and for a non-admin. Node and workerd.
 */
const oidcPermissionsSuite: Suite = ({ client, db }) => {
  const oidc = new OidcClient(client);

  function call(api: ApiKey, op: OperationSpec, credential: { zt?: string; bearer?: string }): Promise<Reply> {
    const { base } = apis[api];
    const path = base + op.path.replace(/\{[^}]+\}/g, 'does-not-exist');
    const query = op.params.filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${encodeURIComponent(String(p.enum?.[0] ?? 'x'))}`);
    const url = query.length ? `${path}?${query.join('&')}` : path;
    const hasBody = op.params.some((p) => p.in === 'body') && op.method !== 'GET';
    return client().request(url, { method: op.method, token: credential.zt, headers: credential.bearer ? { authorization: `Bearer ${credential.bearer}` } : {}, ...(hasBody ? { body: {} } : {}) });
  }

  async function credentials(isAdmin: boolean) {
    const username = unique(isAdmin ? 'oidcpa' : 'oidcpu');
    await storeFixtures(db()).createUser({ username, password: PASSWORD, isAdmin });
    const zt = await client().login(username, PASSWORD);
    const bearer = (await oidc.passwordTokens(username, PASSWORD)).access_token;
    return { zt, bearer };
  }

  /** Runs `f` over `items`, `n` at a time (the walk is a few hundred requests). */
  async function each<T>(items: T[], n: number, f: (item: T) => Promise<void>): Promise<void> {
    for (let i = 0; i < items.length; i += n) await Promise.all(items.slice(i, i + n).map(f));
  }

  describe.each(['client', 'management'] as ApiKey[])('%s API', (api) => {
    const walked = apis[api].operations.filter((op) => op.access !== 'anonymous' && !DESTRUCTIVE.has(op.operationId));

    it('a non-admin bearer token is refused (401) on exactly the operations its zt-session is refused on', async () => {
      const who = await credentials(false);
      let refused = 0;
      await each(walked, 8, async (op) => {
        const [withSession, withToken] = await Promise.all([call(api, op, { zt: who.zt }), call(api, op, { bearer: who.bearer })]);
        expect(withToken.status === 401, `${op.operationId}: zt-session ${withSession.status}, bearer ${withToken.status} ${withToken.text.slice(0, 150)}`).toBe(withSession.status === 401);
        expect(withToken.status, op.operationId).not.toBe(500);
        if (withToken.status === 401) refused++;
      });
      // The admin operations (and on the client API the three service mutations).
      expect(refused).toBeGreaterThanOrEqual(api === 'management' ? 100 : 3);
    }, 120_000);

    it('an admin bearer token is refused nowhere but where the request needs a credential of its own', async () => {
      const who = await credentials(true);
      await each(walked, 8, async (op) => {
        const withToken = await call(api, op, { bearer: who.bearer });
        if (!OWN_CREDENTIAL_401.has(op.operationId)) expect(withToken.status, `${op.operationId}: ${withToken.text.slice(0, 150)}`).not.toBe(401);
        expect(withToken.status, op.operationId).not.toBe(500);
      });
    }, 120_000);
  });
};

export default oidcPermissionsSuite;
