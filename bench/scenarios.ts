/**
 * The scenario table: one entry per measured operation. `build` is the scenario's setup (sessions,
 * ids) and returns the requests the load generator sends in turn, or a reason to skip. Before
 * measuring, the orchestrator sends the first request once: an operation that still answers 501 is
 * reported as skipped, not measured.
 */
import type { Client, RequestSpec } from './http.js';
import { identityName, type SizeName } from './model.js';
import { insertApiSession, insertApiSessions, type BenchUser, type CertUser, type SeededModel, type SqlStore } from './seed.js';

export const CLIENT = '/edge/client/v1';
export const MGMT = '/edge/management/v1';

export type FloorKind = 'read' | 'hash' | 'cert';

export interface ScenarioEnv {
  size: SizeName;
  model: SeededModel;
  password: string;
  sessions: Sessions;
  /** The runtime's store, for setup rows the API cannot create fast enough (API sessions). */
  store: SqlStore;
}

export interface Scenario {
  name: string;
  /** Method and path as shown in the report. */
  operation: string;
  /** The floor the scenario is compared with. */
  floor: FloorKind;
  /** Sizes the scenario runs at (all when absent). */
  sizes?: SizeName[];
  /**
   * Connections for this scenario and its floor instead of `--concurrency`: 1 where the target is a
   * latency (the time one answer takes), which more connections would turn into time spent queueing.
   */
  concurrency?: number;
  build(env: ScenarioEnv): Promise<RequestSpec[] | Skip>;
}

/** A scenario that cannot run; `probe`, when given, is sent to tell "not implemented" (501) apart. */
export interface Skip {
  skip: string;
  probe?: RequestSpec;
}

const json = (body: unknown) => JSON.stringify(body);
const withSession = (token: string) => ({ 'zt-session': token });

/**
 * API sessions for the bench users: a real password login when the controller answers one, else a
 * row written straight into api_sessions (so session-reading scenarios run before login lands).
 */
export class Sessions {
  private cache = new Map<string, Promise<string>>();
  /** How the last session was obtained, for the report. */
  via: 'login' | 'store' | undefined;

  constructor(private readonly client: Client, private readonly store: SqlStore, private readonly password: string) {}

  token(user: BenchUser, api: typeof CLIENT | typeof MGMT = CLIENT): Promise<string> {
    let token = this.cache.get(user.identityId);
    if (!token) {
      token = this.open(user, api);
      this.cache.set(user.identityId, token);
    }
    return token;
  }

  private oidc = new Map<string, Promise<string | undefined>>();

  /**
   * An OIDC access token for the user, by the provider's whole flow (authorize with PKCE, password login,
   * callback, code redemption), cached; undefined when the controller has no OIDC provider.
   */
  accessToken(user: BenchUser): Promise<string | undefined> {
    let token = this.oidc.get(user.identityId);
    if (!token) {
      token = oidcFlow(this.client, user.username, this.password);
      this.oidc.set(user.identityId, token);
    }
    return token;
  }

  private async open(user: BenchUser, api: string): Promise<string> {
    const reply = await this.client.json({
      method: 'POST',
      path: `${api}/authenticate?method=password`,
      body: json({ username: user.username, password: this.password }),
    });
    if (reply.status === 200 && typeof reply.body?.data?.token === 'string') {
      this.via = 'login';
      return reply.body.data.token;
    }
    if (reply.status !== 501) throw new Error(`login of ${user.username} answered ${reply.status}: ${JSON.stringify(reply.body?.error ?? '').slice(0, 200)}`);
    this.via = 'store';
    return insertApiSession(this.store, user);
  }
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const REDIRECT = 'http://127.0.0.1:20314/auth/callback';

function base64url(bytes: Uint8Array | ArrayBuffer): string {
  return Buffer.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)).toString('base64url');
}

/** The authorization-code flow an SDK runs (docs/auth.md, OIDC); undefined when /oidc is not served. */
async function oidcFlow(client: Client, username: string, password: string): Promise<string | undefined> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(40)));
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  const query = new URLSearchParams({ client_id: 'openziti', response_type: 'code', scope: 'openid offline_access', redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 'bench' });
  const authorize = await client.send({ method: 'GET', path: `/oidc/authorize?${query}` });
  if (authorize.status !== 302 || !authorize.location) return undefined;
  const id = new URL(authorize.location).searchParams.get('authRequestID') ?? '';
  const login = await client.send({ method: 'POST', path: '/oidc/login/username', body: json({ id, username, password }) });
  if (login.status !== 302 || !login.location) throw new Error(`OIDC login of ${username} answered ${login.status}`);
  const callback = await client.send({ method: 'GET', path: new URL(login.location).pathname + new URL(login.location).search });
  const code = new URL(callback.location ?? 'http://x/').searchParams.get('code') ?? '';
  const tokens = await client.json({ method: 'POST', path: '/oidc/oauth/token', headers: FORM, body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: 'openziti', redirect_uri: REDIRECT }).toString() });
  if (tokens.status !== 200) throw new Error(`OIDC token request answered ${tokens.status}`);
  return tokens.body.access_token as string;
}

const withBearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * The service list as tunnelers ask for it, with every config type (docs/benchmarks.md): the C SDK under
 * ziti-edge-tunnel pages `configTypes=all&limit=25&offset=0`; OpenZiti's many-services perf test logs in
 * with the config types `all` and lists `limit=500`.
 */
const SDK_SERVICES = `${CLIENT}/services?configTypes=all&limit=25&offset=0`;
const SDK_SERVICES_500 = `${CLIENT}/services?configTypes=all&limit=500`;

export const SCENARIOS: Scenario[] = [
  {
    name: 'password login',
    operation: `POST ${CLIENT}/authenticate?method=password`,
    floor: 'hash',
    async build({ model, password }) {
      return model.loginUsers.map((u) => ({
        method: 'POST',
        path: `${CLIENT}/authenticate?method=password`,
        body: json({ username: u.username, password }),
      }));
    },
  },
  {
    // Each connection presents one bench user's certificate in its TLS handshake (on workerd, the edge's
    // verdict on it: bench/http.ts); the requests rotate over the users, so every connection logs in again
    // and again as its user, as SDKs that re-authenticate do. Every login writes a new API session.
    name: 'certificate login',
    operation: `POST ${CLIENT}/authenticate?method=cert (client certificate)`,
    floor: 'cert',
    async build({ model }) {
      const users = model.certUsers ?? [];
      if (users.length === 0) return { skip: 'no bench identity has a client certificate (enrollment skipped at seeding, or a kept model from before it)' };
      return users.map((u) => certLogin(u));
    },
  },
  {
    // The request path alone: no session check and no store statement, an answer of about the size of
    // the session rows'. What it costs above the read floor is what the app's pipeline (middleware,
    // routing, envelope, headers) costs; every authenticated row pays it too.
    name: 'version (no session, no store)',
    operation: `GET ${CLIENT}/version`,
    floor: 'read',
    async build() {
      return [{ method: 'GET', path: `${CLIENT}/version` }];
    },
  },
  {
    name: 'current API session',
    operation: `GET ${CLIENT}/current-api-session`,
    floor: 'read',
    async build({ model, sessions }) {
      return [{ method: 'GET', path: `${CLIENT}/current-api-session`, headers: withSession(await sessions.token(model.typical)) }];
    },
  },
  {
    // The same operation with an OIDC access token: no store statement for the caller (docs/auth.md).
    name: 'current API session (bearer token)',
    operation: `GET ${CLIENT}/current-api-session (Authorization: Bearer)`,
    floor: 'read',
    async build({ model, sessions }) {
      const token = await sessions.accessToken(model.typical);
      if (!token) return { skip: 'no OIDC provider (ZITI_OIDC=false)' };
      return [{ method: 'GET', path: `${CLIENT}/current-api-session`, headers: withBearer(token) }];
    },
  },
  {
    name: 'current identity',
    operation: `GET ${CLIENT}/current-identity`,
    floor: 'read',
    async build({ model, sessions }) {
      return [{ method: 'GET', path: `${CLIENT}/current-identity`, headers: withSession(await sessions.token(model.typical)) }];
    },
  },
  {
    name: 'list identities (filter, sort)',
    operation: `GET ${MGMT}/identities?filter=name contains "1" sort by name limit 25`,
    floor: 'read',
    async build({ model, sessions }) {
      const filter = encodeURIComponent('name contains "1" sort by name asc limit 25');
      return [{ method: 'GET', path: `${MGMT}/identities?filter=${filter}`, headers: withSession(await sessions.token(model.admin, MGMT)) }];
    },
  },
  {
    // A latency target ("any list of 16,000 rows with an indexed filter"): one client, filters the name
    // index serves, each request a different one (ranges and exact names), as an admin's console pages.
    name: 'list identities (indexed filter, one client)',
    operation: `GET ${MGMT}/identities?filter=name >= "…" sort by name limit 25 | name = "…"`,
    floor: 'read',
    concurrency: 1,
    async build({ model, sessions }) {
      const headers = withSession(await sessions.token(model.admin, MGMT));
      const count = model.identityIds.length;
      const filters = [1, 3, 5, 7].flatMap((eighth) => {
        const at = Math.floor((count * eighth) / 8);
        return [`name >= "${identityName(at)}" sort by name asc limit 25`, `name = "${identityName(at + 1)}"`];
      });
      return filters.map((filter) => ({ method: 'GET', path: `${MGMT}/identities?filter=${encodeURIComponent(filter)}`, headers }));
    },
  },
  {
    name: 'list services (typical identity)',
    operation: `GET ${CLIENT}/services?configTypes=all&limit=25&offset=0`,
    floor: 'read',
    async build({ model, sessions }) {
      return [{ method: 'GET', path: SDK_SERVICES, headers: withSession(await sessions.token(model.typical)) }];
    },
  },
  {
    name: 'list services (worst-case identity)',
    operation: `GET ${CLIENT}/services?configTypes=all&limit=25&offset=0`,
    floor: 'read',
    async build({ model, sessions }) {
      return [{ method: 'GET', path: SDK_SERVICES, headers: withSession(await sessions.token(model.worst)) }];
    },
  },
  {
    name: 'list services (bearer token, typical identity)',
    operation: `GET ${CLIENT}/services?configTypes=all&limit=25&offset=0 (Authorization: Bearer)`,
    floor: 'read',
    async build({ model, sessions }) {
      const token = await sessions.accessToken(model.typical);
      const request: RequestSpec = { method: 'GET', path: SDK_SERVICES, headers: withBearer(token ?? '') };
      if (!token) return { skip: 'no OIDC provider (ZITI_OIDC=false)', probe: request };
      return [request];
    },
  },
  {
    // Token issuance: an RFC 8693 exchange of an access token for a new access token (one session and one
    // identity read, two ES256 signatures: access and ID token).
    name: 'OIDC token issuance (token exchange)',
    operation: 'POST /oidc/oauth/token (token exchange, access token for access token)',
    floor: 'read',
    async build({ model, sessions }) {
      const token = await sessions.accessToken(model.typical);
      if (!token) return { skip: 'no OIDC provider (ZITI_OIDC=false)' };
      const body = new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: token,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      }).toString();
      return [{ method: 'POST', path: '/oidc/oauth/token', headers: { ...FORM, authorization: `Basic ${Buffer.from('openziti:').toString('base64')}` }, body }];
    },
  },
  {
    // The management view of an identity's access: exact totalCount, page of 500 (docs/adr/0006-policy-links.md).
    name: "identity's services (worst-case identity, limit 500)",
    operation: `GET ${MGMT}/identities/{id}/services?limit=500`,
    floor: 'read',
    concurrency: 1,
    async build({ model, sessions }) {
      return [{ method: 'GET', path: `${MGMT}/identities/${model.worst.identityId}/services?limit=500`, headers: withSession(await sessions.token(model.admin, MGMT)) }];
    },
  },
  {
    name: "identity's services (typical identity, first page)",
    operation: `GET ${MGMT}/identities/{id}/services`,
    floor: 'read',
    async build({ model, sessions }) {
      return [{ method: 'GET', path: `${MGMT}/identities/${model.typical.identityId}/services`, headers: withSession(await sessions.token(model.admin, MGMT)) }];
    },
  },
  {
    name: 'list services (worst-case identity, limit 500)',
    operation: `GET ${CLIENT}/services?configTypes=all&limit=500`,
    floor: 'read',
    concurrency: 1,
    async build({ model, sessions }) {
      return [{ method: 'GET', path: SDK_SERVICES_500, headers: withSession(await sessions.token(model.worst)) }];
    },
  },
  {
    // Polled every few seconds by every tunneler: must stay a read of the session check alone.
    name: 'service updates',
    operation: `GET ${CLIENT}/current-api-session/service-updates`,
    floor: 'read',
    async build({ model, sessions }) {
      return [{ method: 'GET', path: `${CLIENT}/current-api-session/service-updates`, headers: withSession(await sessions.token(model.typical)) }];
    },
  },
  {
    // Every request on an API session of its own (written straight into the store), so each one truly
    // creates a session. The requests are data the load generator copies once, while the probe, the
    // statement count and the in-process tool send the first ones again: each request reads its header
    // when it is sent or copied and takes the next unused API session then, so none is used twice.
    name: 'create session (Dial, new)',
    operation: `POST ${CLIENT}/sessions`,
    floor: 'read',
    async build({ model, sessions, store }) {
      const serviceId = model.ids['services']?.[0];
      const token = await sessions.token(model.typical);
      if (!serviceId) return { skip: 'no services seeded', probe: createSession(token, 'no-service-seeded') };
      const tokens = await insertApiSessions(store, model.typical, NEW_SESSION_POOL);
      let next = 0;
      // Past the pool (not at this machine's rates) the API sessions are reused: re-creates.
      const fresh = () => tokens[next++ % tokens.length];
      const body = json({ serviceId, type: 'Dial' });
      return Array.from({ length: NEW_SESSION_REQUESTS }, (): RequestSpec => ({
        method: 'POST',
        path: `${CLIENT}/sessions`,
        get headers() {
          return withSession(fresh());
        },
        body,
      }));
    },
  },
  {
    // The same API session again: the idempotent re-create an SDK makes on every dial.
    name: 'create session (Dial, re-create)',
    operation: `POST ${CLIENT}/sessions`,
    floor: 'read',
    async build({ model, sessions }) {
      // Service 0 carries every role attribute, so any Dial policy of the typical identity reaches it.
      const serviceId = model.ids['services']?.[0];
      const token = await sessions.token(model.typical);
      if (!serviceId) return { skip: 'no services seeded', probe: createSession(token, 'no-service-seeded') };
      return [createSession(token, serviceId)];
    },
  },
  {
    // A policy write recomputes its links and stamps every identity whose service list it changes, in
    // one batch. Service policy 0 alternates between selecting half and a third of all identities
    // (#role-2, #role-3) over half of all services, so every request really changes thousands of links.
    // Last in the table, since it changes the model: policy 0 is left on #role-2 services and on
    // #role-2 or #role-3 identities, whatever it was seeded with.
    name: 'change a policy (half of all identities and services)',
    operation: `PATCH ${MGMT}/service-policies/{id}`,
    floor: 'read',
    concurrency: 1,
    async build({ model, sessions }) {
      const policyId = model.ids['service policies']?.[0];
      const token = await sessions.token(model.admin, MGMT);
      const patch = (identityRoles: string[]): RequestSpec => ({
        method: 'PATCH',
        path: `${MGMT}/service-policies/${policyId ?? 'none'}`,
        headers: withSession(token),
        body: json({ identityRoles, serviceRoles: ['#role-2'] }),
      });
      if (!policyId) return { skip: 'no service policies seeded', probe: patch(['#role-2']) };
      return [patch(['#role-2']), patch(['#role-3'])];
    },
  },
  {
    // One identity's role attributes alternate between two sets: its links to every policy are
    // recomputed and its service list stamped.
    name: "change an identity's role attributes",
    operation: `PATCH ${MGMT}/identities/{id}`,
    floor: 'read',
    concurrency: 1,
    async build({ model, sessions }) {
      const identityId = model.identityIds[7];
      const token = await sessions.token(model.admin, MGMT);
      const patch = (roleAttributes: string[]): RequestSpec => ({ method: 'PATCH', path: `${MGMT}/identities/${identityId}`, headers: withSession(token), body: json({ roleAttributes }) });
      return [patch(['role-2', 'role-3']), patch(['role-5', 'role-7'])];
    },
  },
];

/**
 * The "new session" scenario's requests (more than the load generator sends in a run at this machine's
 * rates) and its API sessions: one per request copied to the load generator, again for a profiled run,
 * and a reserve for the probe, the statement count and the in-process tool's rounds.
 */
const NEW_SESSION_REQUESTS = 10_000;
const NEW_SESSION_POOL = 2 * NEW_SESSION_REQUESTS + 5_000;

/**
 * The body an OpenZiti SDK sends with its certificate login (shared/reference/real-sdk-client.md §2): its
 * sdkInfo and envInfo. The same for every login, as a running SDK's are: after the first login of an
 * identity, they change nothing (src/resources/authenticate/service.ts). The cert floor is sent the same
 * body (and reads it without parsing it), so both carry the same bytes.
 */
export const SDK_LOGIN_BODY = json({
  sdkInfo: { type: 'ziti-sdk-c', version: '1.18.7', revision: 'bench', branch: 'HEAD' },
  envInfo: { os: 'Linux', osRelease: '6.1.0', osVersion: '#1 SMP', arch: 'x86_64', hostname: 'bench-host', domain: '' },
});

function certLogin(user: CertUser): RequestSpec {
  return { method: 'POST', path: `${CLIENT}/authenticate?method=cert`, body: SDK_LOGIN_BODY, tls: { cert: user.cert, key: user.key } };
}

function createSession(token: string, serviceId: string): RequestSpec {
  return { method: 'POST', path: `${CLIENT}/sessions`, headers: withSession(token), body: json({ serviceId, type: 'Dial' }) };
}
