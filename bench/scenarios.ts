/**
 * The scenario table: one entry per measured operation. `build` is the scenario's setup (sessions,
 * ids) and returns the requests the load generator sends in turn, or a reason to skip. Before
 * measuring, the orchestrator sends the first request once: an operation that still answers 501 is
 * reported as skipped, not measured.
 */
import type { Client, RequestSpec } from './http.js';
import type { SizeName } from './model.js';
import { insertApiSession, insertApiSessions, type BenchUser, type SeededModel, type SqlStore } from './seed.js';

export const CLIENT = '/edge/client/v1';
export const MGMT = '/edge/management/v1';

export type FloorKind = 'read' | 'hash';

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
    name: 'current API session',
    operation: `GET ${CLIENT}/current-api-session`,
    floor: 'read',
    async build({ model, sessions }) {
      return [{ method: 'GET', path: `${CLIENT}/current-api-session`, headers: withSession(await sessions.token(model.typical)) }];
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
    name: 'list services (typical identity)',
    operation: `GET ${CLIENT}/services`,
    floor: 'read',
    async build({ model, sessions }) {
      return [{ method: 'GET', path: `${CLIENT}/services`, headers: withSession(await sessions.token(model.typical)) }];
    },
  },
  {
    name: 'list services (worst-case identity)',
    operation: `GET ${CLIENT}/services`,
    floor: 'read',
    async build({ model, sessions }) {
      return [{ method: 'GET', path: `${CLIENT}/services`, headers: withSession(await sessions.token(model.worst)) }];
    },
  },
  {
    // The management view of an identity's access: exact totalCount, page of 500 (docs/adr/0006-policy-links.md).
    name: "identity's services (worst-case identity, limit 500)",
    operation: `GET ${MGMT}/identities/{id}/services?limit=500`,
    floor: 'read',
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
    operation: `GET ${CLIENT}/services?limit=500`,
    floor: 'read',
    async build({ model, sessions }) {
      return [{ method: 'GET', path: `${CLIENT}/services?limit=500`, headers: withSession(await sessions.token(model.worst)) }];
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
    // Every request on another API session of the typical identity: each create is a new session.
    name: 'create session (Dial, new)',
    operation: `POST ${CLIENT}/sessions`,
    floor: 'read',
    async build({ model, sessions, store }) {
      const serviceId = model.ids['services']?.[0];
      const token = await sessions.token(model.typical);
      if (!serviceId) return { skip: 'no services seeded', probe: createSession(token, 'no-service-seeded') };
      const tokens = await insertApiSessions(store, model.typical, NEW_SESSION_TOKENS);
      return tokens.map((t) => createSession(t, serviceId));
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
];

/** API sessions the "new session" scenario rotates through (more than it sends in a run at this machine's rates). */
const NEW_SESSION_TOKENS = 20_000;

function createSession(token: string, serviceId: string): RequestSpec {
  return { method: 'POST', path: `${CLIENT}/sessions`, headers: withSession(token), body: json({ serviceId, type: 'Dial' }) };
}
