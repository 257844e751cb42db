/**
 * Seeding: the model is written straight into the store with batched multi-row INSERTs, through one
 * SQL path for both runtimes (a libSQL client on Node, the D1 binding on workerd). Statements are
 * chunked to at most 100 bound parameters, D1's limit.
 *
 * Seeding is a list of entity seeders. Each one writes its rows into a table when that table exists
 * (the schema grows as resources land), or creates the entities through the management API when its
 * operation answers (for entities whose creation also derives data, such as policies). An entity
 * that can be seeded neither way is skipped with the reason, and the run carries on.
 */
import { cuid, shortId, entityId } from '../src/lib/ids.js';
import { newSessionToken } from '../src/auth/session-token.js';
import { firstSchemaProblem, jsonSchemaValidator } from '../src/lib/json-schema.js';
import { x509 } from '../src/pki/x509.js';
import type { Client } from './http.js';
import { log, Progress } from './log.js';
import {
  CERT_USERS,
  hasHostConfig,
  HOST_V1,
  hostConfigCount,
  hostConfigData,
  hostConfigName,
  identityName,
  INTERCEPT_V1,
  interceptConfigData,
  interceptConfigName,
  LOGIN_USERS,
  POSTURE_CHECKS,
  postureCheckRoles,
  policyRoles,
  roleAttributes,
  routerName,
  serviceName,
  typicalIdentityIndex,
  WORST_IDENTITY_INDEX,
  type ModelSize,
} from './model.js';

export type SqlValue = string | number | null;
export interface Statement {
  sql: string;
  args: SqlValue[];
}

/** The store as the seeder sees it; implemented over libSQL (Node) and D1 (workerd). */
export interface SqlStore {
  all(sql: string, args?: SqlValue[]): Promise<Record<string, unknown>[]>;
  /** Runs the statements atomically, in order. */
  batch(statements: Statement[]): Promise<void>;
}

/** D1 accepts at most 100 bound parameters per statement. */
export const MAX_PARAMS = 100;
const STATEMENTS_PER_BATCH = 50;

interface ColumnInfo {
  name: string;
  required: boolean;
}

export async function tableColumns(store: SqlStore, table: string): Promise<ColumnInfo[] | undefined> {
  const rows = await store.all(`SELECT name, "notnull" AS nn, dflt_value AS dflt, pk FROM pragma_table_info(?)`, [table]);
  if (rows.length === 0) return undefined;
  return rows.map((r) => ({ name: String(r.name), required: Number(r.nn) === 1 && r.dflt === null && Number(r.pk) === 0 }));
}

/**
 * Inserts rows (column name -> value) with multi-row INSERTs. Columns the table does not have are
 * dropped; a required column without a value makes the insert impossible (the reason is returned).
 */
export async function insertRows(
  store: SqlStore,
  table: string,
  rows: Record<string, SqlValue>[],
  progress?: Progress,
): Promise<{ inserted: number } | { skipped: string }> {
  const columns = await tableColumns(store, table);
  if (!columns) return { skipped: `no table ${table}` };
  if (rows.length === 0) return { inserted: 0 };
  const have = new Set(columns.map((c) => c.name));
  const names = Object.keys(rows[0]).filter((n) => have.has(n));
  const missing = columns.filter((c) => c.required && !names.includes(c.name)).map((c) => c.name);
  if (missing.length > 0) return { skipped: `${table} needs ${missing.join(', ')}, which the seeder does not know` };

  const perStatement = Math.max(1, Math.floor(MAX_PARAMS / names.length));
  const columnList = names.map((n) => `"${n}"`).join(', ');
  const tuple = `(${names.map(() => '?').join(', ')})`;
  let batch: Statement[] = [];
  let done = 0;
  for (let at = 0; at < rows.length; at += perStatement) {
    const chunk = rows.slice(at, at + perStatement);
    batch.push({
      sql: `INSERT INTO "${table}" (${columnList}) VALUES ${chunk.map(() => tuple).join(', ')}`,
      args: chunk.flatMap((row) => names.map((n) => row[n] ?? null)),
    });
    if (batch.length === STATEMENTS_PER_BATCH || at + perStatement >= rows.length) {
      await store.batch(batch);
      done += batch.reduce((n, s) => n + s.args.length / names.length, 0);
      progress?.update(done);
      batch = [];
    }
  }
  return { inserted: rows.length };
}

/** A password user of the benchmark: the identity it logs in as and its authenticator. */
export interface BenchUser {
  identityId: string;
  authenticatorId: string;
  username: string;
}

/** What seeding produced, for the scenarios. */
export interface SeededModel {
  admin: BenchUser;
  typical: BenchUser;
  worst: BenchUser;
  /** Plain identities with a password, to spread logins over. */
  loginUsers: BenchUser[];
  identityIds: string[];
  /** Plain identities enrolled with a client certificate, to spread certificate logins over (absent in older kept models). */
  certUsers?: CertUser[];
  /** Ids per entity kind that was seeded (services, edge routers, policies ...). */
  ids: Record<string, string[]>;
  entities: SeedReport[];
}

export interface SeedReport {
  entity: string;
  count: number;
  via: 'store' | 'api' | 'skipped';
  ms: number;
  reason?: string;
}

interface SeedContext {
  size: ModelSize;
  now: number;
  passwordHash: string;
  /** The management API with an admin session, once the bench admin exists. */
  api?: { client: Client; token: string };
  ids: Record<string, string[]>;
}

/** One kind of entity: its rows for the store and/or its creation through the management API. */
interface EntitySeeder {
  entity: string;
  count(size: ModelSize): number;
  /** Tables that may hold it, first existing one wins. */
  tables?: string[];
  row?(i: number, ctx: SeedContext): Record<string, SqlValue>;
  /** Management API path and body, for entities whose creation derives data. */
  api?: { path: string; body(i: number, ctx: SeedContext): unknown };
  prefer: 'store' | 'api';
  /**
   * Store path only: rows of other tables that creating the entities through the API would write too
   * (e.g. `service_configs` for a service created with configs), given the ids of the inserted rows.
   */
  derived?(ids: string[], ctx: SeedContext): { table: string; rows: Record<string, SqlValue>[] };
  /** Store path only: a reason the rows cannot be written as the API would write them, checked first. */
  precondition?(store: SqlStore, ctx: SeedContext): Promise<string | undefined>;
}

const base = (id: string, ctx: SeedContext) => ({ id, created_at: ctx.now, updated_at: ctx.now, tags: '{}', is_system: 0 });
const attrs = (i: number) => JSON.stringify(roleAttributes(i));

/**
 * Entities beyond identities. The services, routers and policies tables do not all exist yet: each
 * seeder uses the table when it appears (column names follow src/db/schema/common.ts), or the API.
 */
const MODEL_SEEDERS: EntitySeeder[] = [
  // Configs first, so that services are created with them (`configs`) as an administrator would.
  configSeeder('intercept.v1 configs', INTERCEPT_V1, (s) => s.services, (k) => k, interceptConfigName, interceptConfigData),
  configSeeder('host.v1 configs', HOST_V1, (s) => hostConfigCount(s.services), (k) => 2 * k, hostConfigName, hostConfigData),
  {
    entity: 'services',
    count: (s) => s.services,
    tables: ['services'],
    row: (i, ctx) => ({ ...base(entityId(), ctx), name: serviceName(i), role_attributes: attrs(i), encryption_required: 1, terminator_strategy: 'smartrouting' }),
    api: { path: '/edge/management/v1/services', body: (i, ctx) => ({ name: serviceName(i), roleAttributes: roleAttributes(i), encryptionRequired: true, configs: serviceConfigIds(i, ctx).map((c) => c.configId) }) },
    prefer: 'store',
    // What POST /services with `configs` writes besides the service (setServiceConfigs): one row per attached
    // config. No policy exists yet, so no policy link and no identity's service list changes.
    derived: (ids, ctx) => ({ table: 'service_configs', rows: ids.flatMap((serviceId, i) => serviceConfigIds(i, ctx).map((c) => ({ service_id: serviceId, config_type_id: c.configTypeId, config_id: c.configId }))) }),
  },
  {
    // Before the service policies, which select them by attribute (the links are derived either way round).
    entity: 'posture checks',
    count: () => POSTURE_CHECKS.length,
    api: { path: '/edge/management/v1/posture-checks', body: (i) => POSTURE_CHECKS[i] },
    prefer: 'api',
  },
  {
    entity: 'edge routers',
    count: (s) => s.edgeRouters,
    tables: ['edge_routers', 'routers'],
    row: (i, ctx) => ({ ...base(shortId(), ctx), name: routerName(i), role_attributes: attrs(i), is_tunneler_enabled: 0, cost: 0, no_traversal: 0, disabled: 0 }),
    api: { path: '/edge/management/v1/edge-routers', body: (i) => ({ name: routerName(i), roleAttributes: roleAttributes(i) }) },
    prefer: 'api',
  },
  {
    entity: 'service policies',
    count: (s) => s.policiesPerKind,
    tables: ['service_policies'],
    row: (j, ctx) => {
      const r = policyRoles(j);
      return { ...base(entityId(), ctx), name: `bench-sp-${j}`, type: j % 2 ? 'Bind' : 'Dial', semantic: 'AnyOf', identity_roles: JSON.stringify([r.a]), service_roles: JSON.stringify([r.b]), posture_check_roles: JSON.stringify(postureCheckRoles(j)) };
    },
    api: {
      path: '/edge/management/v1/service-policies',
      body: (j) => {
        const r = policyRoles(j);
        return { name: `bench-sp-${j}`, type: j % 2 ? 'Bind' : 'Dial', semantic: 'AnyOf', identityRoles: [r.a], serviceRoles: [r.b], postureCheckRoles: postureCheckRoles(j) };
      },
    },
    prefer: 'api',
  },
  {
    entity: 'edge router policies',
    count: (s) => s.policiesPerKind,
    tables: ['edge_router_policies'],
    row: (j, ctx) => {
      const r = policyRoles(j);
      return { ...base(entityId(), ctx), name: `bench-erp-${j}`, semantic: 'AnyOf', identity_roles: JSON.stringify([r.a]), edge_router_roles: JSON.stringify([r.b]) };
    },
    api: {
      path: '/edge/management/v1/edge-router-policies',
      body: (j) => {
        const r = policyRoles(j);
        return { name: `bench-erp-${j}`, semantic: 'AnyOf', identityRoles: [r.a], edgeRouterRoles: [r.b] };
      },
    },
    prefer: 'api',
  },
  {
    entity: 'service edge router policies',
    count: (s) => s.policiesPerKind,
    tables: ['service_edge_router_policies'],
    row: (j, ctx) => {
      const r = policyRoles(j);
      return { ...base(entityId(), ctx), name: `bench-serp-${j}`, semantic: 'AnyOf', service_roles: JSON.stringify([r.a]), edge_router_roles: JSON.stringify([r.b]) };
    },
    api: {
      path: '/edge/management/v1/service-edge-router-policies',
      body: (j) => {
        const r = policyRoles(j);
        return { name: `bench-serp-${j}`, semantic: 'AnyOf', serviceRoles: [r.a], edgeRouterRoles: [r.b] };
      },
    },
    prefer: 'api',
  },
];

/**
 * Configs of one built-in type, one per service of `serviceIndex(k)`, into the store: creating a config
 * writes its row alone. The type must be in the store (a fresh store has it) and every config's data is
 * checked against the type's schema there, as POST /configs would.
 */
function configSeeder(
  entity: string,
  type: { id: string; name: string },
  count: (s: ModelSize) => number,
  serviceIndex: (k: number) => number,
  name: (serviceIndex: number) => string,
  data: (serviceIndex: number) => Record<string, unknown>,
): EntitySeeder {
  return {
    entity,
    count,
    tables: ['configs'],
    row: (k, ctx) => ({ ...base(shortId(), ctx), name: name(serviceIndex(k)), config_type_id: type.id, data: JSON.stringify(data(serviceIndex(k))) }),
    api: { path: '/edge/management/v1/configs', body: (k) => ({ name: name(serviceIndex(k)), configTypeId: type.id, data: data(serviceIndex(k)) }) },
    prefer: 'store',
    async precondition(store, ctx) {
      const rows = await store.all('SELECT schema FROM config_types WHERE id = ?', [type.id]);
      if (rows.length === 0) return `no config type ${type.name} (${type.id}) in the store`;
      const validator = jsonSchemaValidator(JSON.parse(String(rows[0].schema)) as Record<string, unknown>);
      for (let k = 0; k < count(ctx.size); k++) {
        const problem = firstSchemaProblem(validator, data(serviceIndex(k)));
        if (problem) throw new Error(`${entity}: the data of ${name(serviceIndex(k))} is not valid for ${type.name}: ${problem.path}: ${problem.message}`);
      }
      return undefined;
    },
  };
}

/** The configs service i is created with: its intercept.v1 config and, for even i, its host.v1 config. */
function serviceConfigIds(i: number, ctx: SeedContext): { configId: string; configTypeId: string }[] {
  const out: { configId: string; configTypeId: string }[] = [];
  const intercept = ctx.ids['intercept.v1 configs']?.[i];
  if (intercept) out.push({ configId: intercept, configTypeId: INTERCEPT_V1.id });
  const host = hasHostConfig(i) ? ctx.ids['host.v1 configs']?.[i / 2] : undefined;
  if (host) out.push({ configId: host, configTypeId: HOST_V1.id });
  return out;
}

/** Ids of the seeded entities (and how many rows of a derived table came with them), or why they were not. */
type Seeded = { ids: string[]; derived?: { table: string; count: number } } | { skipped: string };

async function viaStore(store: SqlStore, seeder: EntitySeeder, ctx: SeedContext): Promise<Seeded> {
  if (!seeder.tables || !seeder.row) return { skipped: 'no store mapping' };
  for (const table of seeder.tables) {
    if (!(await tableColumns(store, table))) continue;
    const unmet = await seeder.precondition?.(store, ctx);
    if (unmet) return { skipped: unmet };
    const n = seeder.count(ctx.size);
    const rows = Array.from({ length: n }, (_, i) => seeder.row!(i, ctx));
    const progress = new Progress(`${seeder.entity} -> ${table}`, n);
    const result = await insertRows(store, table, rows, progress);
    if ('skipped' in result) return result;
    progress.done();
    const ids = rows.map((r) => String(r.id));
    const derived = seeder.derived?.(ids, ctx);
    if (derived && derived.rows.length > 0) {
      const more = new Progress(`${seeder.entity}: ${derived.table}`, derived.rows.length);
      const written = await insertRows(store, derived.table, derived.rows, more);
      // The entities are in the store already: without their derived rows the model would not be what the API makes.
      if ('skipped' in written) throw new Error(`cannot seed ${seeder.entity}: ${written.skipped}`);
      more.done();
      return { ids, derived: { table: derived.table, count: derived.rows.length } };
    }
    return { ids };
  }
  return { skipped: `no table ${seeder.tables.join(' / ')} yet` };
}

async function viaApi(seeder: EntitySeeder, ctx: SeedContext): Promise<Seeded> {
  if (!seeder.api) return { skipped: 'no API mapping' };
  if (!ctx.api) return { skipped: 'no admin session for the management API' };
  const { client, token } = ctx.api;
  const api = seeder.api;
  const create = async (i: number) =>
    client.json({ method: 'POST', path: api.path, headers: { 'zt-session': token }, body: JSON.stringify(api.body(i, ctx)) });
  const n = seeder.count(ctx.size);
  if (n === 0) return { ids: [] };
  const first = await create(0);
  if (first.status === 501) return { skipped: `POST ${api.path} answers 501` };
  if (first.status < 200 || first.status >= 300) return { skipped: `POST ${api.path} answers ${first.status}: ${JSON.stringify(first.body?.error ?? '').slice(0, 160)}` };
  const ids: string[] = new Array(n);
  ids[0] = first.body?.data?.id;
  const progress = new Progress(`${seeder.entity} -> API`, n);
  let next = 1;
  let done = 1;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const reply = await create(i);
      if (reply.status < 200 || reply.status >= 300) throw new Error(`POST ${api.path} #${i} answered ${reply.status}`);
      ids[i] = reply.body?.data?.id;
      progress.update(++done);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  progress.done();
  return { ids };
}

/** Identities (with role attributes) and the bench users' password authenticators, straight into the store. */
async function seedIdentities(store: SqlStore, ctx: SeedContext): Promise<Omit<SeededModel, 'ids' | 'entities'>> {
  const n = ctx.size.identities;
  const identityIds = Array.from({ length: n }, () => shortId());
  const rows = identityIds.map((id, i) => ({ ...base(id, ctx), name: identityName(i), type_id: 'Default', role_attributes: attrs(i), is_admin: 0 }));
  const adminId = shortId();
  rows.push({ ...base(adminId, ctx), name: 'bench-admin', type_id: 'Default', role_attributes: '[]', is_admin: 1 });
  const progress = new Progress('identities', rows.length);
  const result = await insertRows(store, 'identities', rows, progress);
  if ('skipped' in result) throw new Error(`cannot seed identities: ${result.skipped}`);
  progress.done();

  const user = (identityId: string, username: string): BenchUser => ({ identityId, username, authenticatorId: shortId() });
  const typicalIndex = typicalIdentityIndex(n);
  const admin = user(adminId, 'bench-admin');
  const typical = user(identityIds[typicalIndex], identityName(typicalIndex));
  const worst = user(identityIds[WORST_IDENTITY_INDEX], identityName(WORST_IDENTITY_INDEX));
  const loginUsers: BenchUser[] = [];
  for (let i = 1; loginUsers.length < LOGIN_USERS && i < n; i++) {
    if (i !== typicalIndex) loginUsers.push(user(identityIds[i], identityName(i)));
  }
  const users = [admin, typical, worst, ...loginUsers];
  const auth = await insertRows(
    store,
    'authenticators',
    users.map((u) => ({ ...base(u.authenticatorId, ctx), identity_id: u.identityId, method: 'updb', username: u.username, password_hash: ctx.passwordHash })),
  );
  if ('skipped' in auth) throw new Error(`cannot seed authenticators: ${auth.skipped}`);
  return { admin, typical, worst, loginUsers, identityIds };
}

/**
 * Seeds the whole model. `adminSession` is called once the bench admin exists, to reach the
 * management API for the entities created through it.
 */
export async function seedModel(
  store: SqlStore,
  size: ModelSize,
  passwordHash: string,
  adminSession: (admin: BenchUser) => Promise<{ client: Client; token: string }>,
): Promise<SeededModel> {
  const ctx: SeedContext = { size, now: Date.now(), passwordHash, ids: {} };
  const entities: SeedReport[] = [];
  let started = performance.now();
  const people = await seedIdentities(store, ctx);
  entities.push({ entity: 'identities', count: size.identities + 1, via: 'store', ms: performance.now() - started });
  entities.push({ entity: 'password authenticators', count: 3 + people.loginUsers.length, via: 'store', ms: 0 });
  ctx.api = await adminSession(people.admin);

  for (const seeder of MODEL_SEEDERS) {
    started = performance.now();
    const order = seeder.prefer === 'api' ? [viaApi, viaStore] : [viaStore, viaApi];
    const reasons: string[] = [];
    let report: SeedReport | undefined;
    let derived: SeedReport | undefined;
    for (const attempt of order) {
      const result = attempt === viaApi ? await viaApi(seeder, ctx) : await viaStore(store, seeder, ctx);
      if ('ids' in result) {
        ctx.ids[seeder.entity] = result.ids;
        report = { entity: seeder.entity, count: result.ids.length, via: attempt === viaApi ? 'api' : 'store', ms: performance.now() - started };
        if (result.derived) derived = { entity: `${seeder.entity}: ${result.derived.table}`, count: result.derived.count, via: 'store', ms: 0 };
        break;
      }
      reasons.push(result.skipped);
    }
    report ??= { entity: seeder.entity, count: 0, via: 'skipped', ms: 0, reason: reasons.join('; ') };
    if (report.via === 'skipped') log(`  ${seeder.entity}: skipped (${report.reason})`);
    entities.push(report);
    if (derived) entities.push(derived);
  }
  started = performance.now();
  const enrolled = await enrollCertUsers(ctx.api, people);
  const certUsers = 'users' in enrolled ? enrolled.users : [];
  if ('skipped' in enrolled) log(`  certificate authenticators: skipped (${enrolled.skipped})`);
  entities.push({ entity: 'certificate authenticators', count: certUsers.length, via: 'skipped' in enrolled ? 'skipped' : 'api', ms: performance.now() - started, reason: 'skipped' in enrolled ? enrolled.skipped : undefined });
  return { ...people, certUsers, ids: ctx.ids, entities };
}

/** A bench identity with a client certificate: the chain its enrollment returned and the key of its CSR. */
export interface CertUser {
  identityId: string;
  name: string;
  /** PEM, leaf first (the controller's answer to the enrollment, as an SDK stores it in its identity file). */
  cert: string;
  /** PKCS#8 PEM of the EC P-256 key the CSR was made with. */
  key: string;
}

/**
 * Client certificates for CERT_USERS plain identities, obtained as an SDK obtains one
 * (docs: shared/reference/real-sdk-client.md §1): an `ott` enrollment created through the management API,
 * then `POST /edge/client/v1/enroll?method=ott&token=<jti>` with the PEM CSR of a fresh EC P-256 key,
 * subject `O=OpenZiti, DC=<iss>, CN=<identity id>`. The controller signs it with its edge signer and
 * records the `cert` authenticator (fingerprint, PEM chain, public-key print) exactly as for a device.
 */
async function enrollCertUsers(
  api: SeedContext['api'],
  people: Omit<SeededModel, 'ids' | 'entities'>,
): Promise<{ users: CertUser[] } | { skipped: string }> {
  if (!api) return { skipped: 'no admin session for the management API' };
  const { client, token } = api;
  const taken = new Set([people.admin, people.typical, people.worst, ...people.loginUsers].map((u) => u.identityId));
  const chosen: { identityId: string; name: string }[] = [];
  for (let i = 1; chosen.length < CERT_USERS && i < people.identityIds.length; i++) {
    if (!taken.has(people.identityIds[i])) chosen.push({ identityId: people.identityIds[i], name: identityName(i) });
  }
  const users: CertUser[] = [];
  for (const { identityId, name } of chosen) {
    const created = await client.json({
      method: 'POST',
      path: '/edge/management/v1/enrollments',
      headers: { 'zt-session': token },
      body: JSON.stringify({ method: 'ott', identityId, expiresAt: new Date(Date.now() + 3_600_000).toISOString() }),
    });
    if (created.status !== 201) return { skipped: `POST /enrollments answered ${created.status}: ${JSON.stringify(created.body?.error?.code ?? '')}` };
    const detail = await client.json({ method: 'GET', path: `/edge/management/v1/enrollments/${created.body.data.id}`, headers: { 'zt-session': token } });
    const jwt = detail.body?.data?.jwt;
    if (detail.status !== 200 || typeof jwt !== 'string') return { skipped: `GET /enrollments/{id} answered ${detail.status} without a JWT` };
    // What an SDK reads of the enrollment JWT: the token (jti) and the controller's address (iss).
    const claims = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8')) as { jti: string; iss: string };
    const keys = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({
      name: [{ O: ['OpenZiti'] }, { DC: [claims.iss] }, { CN: [identityId] }],
      keys,
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    });
    const enrolled = await client.json({
      method: 'POST',
      path: `/edge/client/v1/enroll?method=ott&token=${encodeURIComponent(claims.jti)}`,
      headers: { 'content-type': 'text/plain' },
      body: csr.toString('pem'),
    });
    const cert = enrolled.body?.data?.cert;
    if (enrolled.status !== 200 || typeof cert !== 'string') return { skipped: `POST /enroll?method=ott answered ${enrolled.status}: ${JSON.stringify(enrolled.body?.error?.code ?? '')}` };
    const key = x509.PemConverter.encode((await crypto.subtle.exportKey('pkcs8', keys.privateKey)) as ArrayBuffer, 'PRIVATE KEY');
    users.push({ identityId, name, cert, key });
  }
  return { users };
}

/** An API session written straight into the store (when password login is not implemented yet). */
export async function insertApiSession(store: SqlStore, user: BenchUser): Promise<string> {
  const now = Date.now();
  const { token, tokenHash } = await newSessionToken();
  const result = await insertRows(store, 'api_sessions', [
    { id: cuid(), created_at: now, updated_at: now, tags: '{}', is_system: 0, token_hash: tokenHash, identity_id: user.identityId, authenticator_id: user.authenticatorId, ip_address: '127.0.0.1', config_types: '[]', last_activity_at: now },
  ]);
  if ('skipped' in result) throw new Error(`cannot insert an API session: ${result.skipped}`);
  return token;
}

/** `count` API sessions of one user written in bulk; their tokens. */
export async function insertApiSessions(store: SqlStore, user: BenchUser, count: number): Promise<string[]> {
  const now = Date.now();
  const tokens: string[] = [];
  const rows: Record<string, SqlValue>[] = [];
  for (let i = 0; i < count; i++) {
    const { token, tokenHash } = await newSessionToken();
    tokens.push(token);
    rows.push({ id: cuid(), created_at: now, updated_at: now, tags: '{}', is_system: 0, token_hash: tokenHash, identity_id: user.identityId, authenticator_id: user.authenticatorId, ip_address: '127.0.0.1', config_types: '[]', last_activity_at: now });
  }
  const result = await insertRows(store, 'api_sessions', rows);
  if ('skipped' in result) throw new Error(`cannot insert API sessions: ${result.skipped}`);
  return tokens;
}
