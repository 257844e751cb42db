/**
 * The data-integrity checkers (`POST /database/check-data-integrity` and `fix-data-integrity`, reference
 * model-and-policies §10.5; docs/operations.md, "Data integrity").
 *
 * The store keeps some data derived from other rows, and some rows that only make sense while another
 * row exists. Writes keep both exact in their own batches; a checker proves it after the fact: it
 * recomputes what it covers from the rows it derives from, reports every difference, and gives the
 * statements that repair them.
 *
 * ## Adding a checker
 *
 * A table added to the store that keeps derived data, or whose rows belong to another row (sessions of an
 * API session, posture data of an identity, ...), gets its checker here: append it to `CHECKERS`, in an
 * order where what it relies on is repaired first (role lists before the links computed from them,
 * sessions before the rows that belong to sessions). Most checkers are one line:
 *
 * - `orphans(...)`: rows whose reference names no row of the referenced table (deleted with the fix);
 * - `simple(...)`: any query of differences with a set-based repair.
 *
 * A checker whose work grows with the store (statements per policy, a recount per cached total, a scan
 * of a large table) pages itself with a cursor and stops taking more work once a slice has taken
 * SLICE_MS, as `policyLinkRows`, `accessCountTotals` and `orphanLinks` do: a slice must fit in a
 * request's background time on Workers, and on Node it holds the event loop while it runs.
 *
 * ## The contract
 *
 * `slice(db, cursor, limit)` examines one bounded slice starting at `cursor` (null: the beginning) and
 * returns at most `limit` descriptions (`more` when it found others beyond them), the statements that
 * repair everything the slice found, and the cursor of the next slice (null: the checker is done).
 * Repairs are applied in one atomic batch with the run's progress (src/operations/integrity.ts), so they
 * must be correct whatever happened since the slice was examined: set-based (`DELETE ... WHERE <the
 * condition>`), or guarded by the values they were computed from. They are idempotent: a slice applied
 * twice (a run resumed after an instance stopped) changes nothing more. Descriptions name ids, never
 * secrets (tokens, hashes, keys).
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { NO_AUTHENTICATOR } from '../auth/repo.js';
import { qualified as q } from '../crud/repo.js';
import { sessionLacksAccess } from '../policy/service-updates-repo.js';
import type { Db, Statement } from '../db/client.js';
import {
  accessCounts,
  apiSessionCertificates,
  apiSessions,
  authAttempts,
  authenticators,
  authPolicies,
  cas,
  configs,
  configTypes,
  edgeRouterPolicies,
  edgeRouters,
  enrollments,
  identities,
  identityServiceConfigs,
  identityTypes,
  mfas,
  policyLinks,
  serviceConfigs,
  serviceEdgeRouterPolicies,
  sessions,
  serviceGrantSets,
  servicePolicies,
  services,
  terminators,
  transitRouters,
} from '../db/schema/index.js';
import { readJson, toSet } from '../lib/json.js';
import { bumpGeneration, currentGeneration, ENTITY_TABLES, entityMatch, grantSetOf, grantSetsOf, identityServiceWalk, reachable, ROLE_LISTS, type PolicyKind, type Role } from '../policy/repo.js';
import type { Semantic } from '../policy/roles.js';

/** What one slice of a checker found. */
export interface Slice {
  /** At most `limit` descriptions of differences, in the order found. */
  findings: string[];
  /** Differences beyond `limit` were found (they are repaired all the same). */
  more: boolean;
  /** Statements repairing everything this slice found; empty when it found nothing. */
  fix: Statement[];
  /** Where the next slice starts; null when the checker is done. */
  next: string | null;
}

export interface Checker {
  /** Stable name (logs, docs). */
  name: string;
  slice(db: Db, cursor: string | null, limit: number): Promise<Slice>;
}

type Row = Record<string, unknown>;

const str = (v: unknown) => String(v ?? '');

/** A query of differences (without LIMIT) and a set-based repair, examined in one slice. */
function simple(name: string, query: SQL, describe: (r: Row) => string, fix: (db: Db) => Statement[]): Checker {
  return {
    name,
    async slice(db, _cursor, limit) {
      const rows = await db.all<Row>(sql`${query} LIMIT ${limit + 1}`);
      return { findings: rows.slice(0, limit).map(describe), more: rows.length > limit, fix: rows.length > 0 ? fix(db) : [], next: null };
    },
  };
}

/** No row of `parent` has `parentId` = `ref` (a null reference is no reference). */
function missing(parent: SQLiteTable, parentId: SQLiteColumn, ref: SQLiteColumn): SQL {
  return sql`(${q(ref)} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${parent} WHERE ${q(parentId)} = ${q(ref)}))`;
}

/** Rows of `table` matching `where` (references to missing rows), deleted by the repair. */
function orphans(name: string, table: SQLiteTable, id: SQLiteColumn, where: SQL, describe: (id: string) => string): Checker {
  return simple(name, sql`SELECT ${q(id)} AS id FROM ${table} WHERE ${where}`, (r) => describe(str(r.id)), (db) => [db.delete(table).where(where)]);
}

const identityMissing = (ref: SQLiteColumn) => missing(identities, identities.id, ref);

// ---------------------------------------------------------------------------------------------------
// Role attributes and role lists: JSON arrays of strings kept as sorted sets (what matching and the
// role-attribute lists read; the role-attribute lists themselves are computed on read, not stored).

interface SetTable {
  table: SQLiteTable & { id: SQLiteColumn; name: SQLiteColumn };
  label: string;
  columns: { column: SQLiteColumn; field: string }[];
}

const SET_TABLES: SetTable[] = [
  { table: identities, label: 'identity', columns: [{ column: identities.roleAttributes, field: 'roleAttributes' }] },
  { table: services, label: 'service', columns: [{ column: services.roleAttributes, field: 'roleAttributes' }] },
  { table: edgeRouters, label: 'edge router', columns: [{ column: edgeRouters.roleAttributes, field: 'roleAttributes' }] },
  {
    table: servicePolicies,
    label: 'service policy',
    columns: [
      { column: servicePolicies.identityRoles, field: 'identityRoles' },
      { column: servicePolicies.serviceRoles, field: 'serviceRoles' },
      { column: servicePolicies.postureCheckRoles, field: 'postureCheckRoles' },
    ],
  },
  {
    table: edgeRouterPolicies,
    label: 'edge router policy',
    columns: [
      { column: edgeRouterPolicies.identityRoles, field: 'identityRoles' },
      { column: edgeRouterPolicies.edgeRouterRoles, field: 'edgeRouterRoles' },
    ],
  },
  {
    table: serviceEdgeRouterPolicies,
    label: 'service edge router policy',
    columns: [
      { column: serviceEdgeRouterPolicies.serviceRoles, field: 'serviceRoles' },
      { column: serviceEdgeRouterPolicies.edgeRouterRoles, field: 'edgeRouterRoles' },
    ],
  },
];

const SET_PAGE = 500;

/** The stored text as writes store it: a JSON array of strings, sorted and unique. */
function asStoredSet(text: string): string {
  const parsed = readJson<unknown>(text, []);
  const values = Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : [];
  return JSON.stringify(toSet(values));
}

function bounded(text: string, max = 120): string {
  return text.length > max ? text.slice(0, max) + '...' : text;
}

/** Cursor `<table index>:<last id>`. */
function parseCursor(cursor: string | null): { index: number; after: string } {
  if (!cursor) return { index: 0, after: '' };
  const at = cursor.indexOf(':');
  return { index: Number(cursor.slice(0, at)) || 0, after: cursor.slice(at + 1) };
}

const roleSets: Checker = {
  name: 'role-sets',
  async slice(db, cursor, limit) {
    const { index, after } = parseCursor(cursor);
    const t = SET_TABLES[index];
    if (!t) return { findings: [], more: false, fix: [], next: null };
    const cols = t.columns.map((c, i) => sql`${q(c.column)} AS ${sql.identifier(`c${i}`)}`);
    const rows = await db.all<Row>(sql`SELECT ${q(t.table.id)} AS id, ${q(t.table.name)} AS name, ${sql.join(cols, sql`, `)} FROM ${t.table} WHERE ${q(t.table.id)} > ${after} ORDER BY ${q(t.table.id)} LIMIT ${SET_PAGE}`);
    const findings: string[] = [];
    let more = false;
    const fix: Statement[] = [];
    for (const r of rows) {
      t.columns.forEach((c, i) => {
        const stored = str(r[`c${i}`]);
        const wanted = asStoredSet(stored);
        if (stored === wanted) return;
        if (findings.length < limit) findings.push(`${t.label} ${str(r.id)} (${str(r.name)}): ${c.field} is not a sorted set of strings: ${bounded(stored)}`);
        else more = true;
        const table = t.table as typeof identities;
        // Guarded by the value examined: a write since then already stored a proper set.
        // The field is the column's property name; guarded by the value examined (a write since stored a proper set).
        fix.push(db.update(table).set({ [c.field]: wanted } as never).where(and(eq(table.id, str(r.id)), sql`${q(c.column)} = ${stored}`)));
      });
    }
    const next = rows.length === SET_PAGE ? `${index}:${str(rows[rows.length - 1].id)}` : index + 1 < SET_TABLES.length ? `${index + 1}:` : null;
    return { findings, more, fix, next };
  },
};

// ---------------------------------------------------------------------------------------------------
// `@id` entries of policy role lists naming entities that no longer exist (deletes remove them, §3.8).

const ROLE_LABEL: Record<Role, string> = { identity: 'identity', service: 'service', router: 'edge router', postureCheck: 'posture check' };
const KIND_LABEL: Record<PolicyKind, string> = { sp: 'service policy', erp: 'edge router policy', serp: 'service edge router policy' };

function danglingRefs(list: (typeof ROLE_LISTS)[number]): Checker {
  const e = ENTITY_TABLES[list.role];
  const col = sql.identifier(list.column.name);
  const safe = sql`CASE WHEN json_valid(${col}) THEN ${col} ELSE '[]' END`;
  const dangling = sql`substr(zr.value, 1, 1) = '@' AND NOT EXISTS (SELECT 1 FROM ${e.table} WHERE ${q(e.id)} = substr(zr.value, 2))`;
  const table = list.table as typeof servicePolicies;
  return simple(
    `policy-references:${list.kind}:${list.field}`,
    sql`SELECT zp.id AS id, zp.name AS name, zr.value AS ref FROM ${list.table} AS zp, json_each(CASE WHEN json_valid(zp.${col}) THEN zp.${col} ELSE '[]' END) AS zr WHERE ${dangling}`,
    (r) => `${KIND_LABEL[list.kind]} ${str(r.id)} (${str(r.name)}): ${list.field} names ${ROLE_LABEL[list.role]} ${str(r.ref)}, which does not exist`,
    (db) => [
      db
        .update(table)
        .set({ [list.field]: sql`(SELECT json_group_array(value) FROM (SELECT zr.value AS value FROM json_each(${col}) AS zr WHERE NOT (${dangling}) ORDER BY zr.value))` })
        .where(sql`json_valid(${col}) AND EXISTS (SELECT 1 FROM json_each(${safe}) AS zr WHERE ${dangling})`),
    ],
  );
}

// ---------------------------------------------------------------------------------------------------
// Configs, attachments and overrides. The config type of an attachment or an override is copied from
// its config (the primary keys hold "one per type"), so it must still be the config's type.

const configTypeOf = (configId: SQLiteColumn) => sql`(SELECT ${q(configs.configTypeId)} FROM ${configs} WHERE ${q(configs.id)} = ${q(configId)})`;

const configsOfMissingTypes: Checker = (() => {
  const where = missing(configTypes, configTypes.id, configs.configTypeId);
  const ofThose = (column: SQLiteColumn) => sql`${q(column)} IN (SELECT ${q(configs.id)} FROM ${configs} WHERE ${where})`;
  return simple(
    'configs-of-missing-types',
    sql`SELECT ${q(configs.id)} AS id, ${q(configs.name)} AS name, ${q(configs.configTypeId)} AS type FROM ${configs} WHERE ${where}`,
    (r) => `config ${str(r.id)} (${str(r.name)}) has config type ${str(r.type)}, which does not exist`,
    // The config goes, with its attachments and the overrides naming it, in one batch.
    (db) => [db.delete(serviceConfigs).where(ofThose(serviceConfigs.configId)), db.delete(identityServiceConfigs).where(ofThose(identityServiceConfigs.configId)), db.delete(configs).where(where)],
  );
})();

const serviceConfigProblems = sql`(${missing(services, services.id, serviceConfigs.serviceId)} OR ${missing(configs, configs.id, serviceConfigs.configId)} OR ${q(serviceConfigs.configTypeId)} IS NOT ${configTypeOf(serviceConfigs.configId)})`;
const serviceConfigAttachments = simple(
  'service-configs',
  sql`SELECT ${q(serviceConfigs.serviceId)} AS service, ${q(serviceConfigs.configId)} AS config, ${q(serviceConfigs.configTypeId)} AS type FROM ${serviceConfigs} WHERE ${serviceConfigProblems}`,
  (r) => `service ${str(r.service)}: attached config ${str(r.config)} (type ${str(r.type)}) is missing, of another type, or attached to a missing service`,
  (db) => [db.delete(serviceConfigs).where(serviceConfigProblems)],
);

const overrideProblems = sql`(${identityMissing(identityServiceConfigs.identityId)} OR ${missing(services, services.id, identityServiceConfigs.serviceId)} OR ${missing(configs, configs.id, identityServiceConfigs.configId)} OR ${q(identityServiceConfigs.configTypeId)} IS NOT ${configTypeOf(identityServiceConfigs.configId)})`;
const serviceConfigOverrides = simple(
  'identity-service-configs',
  sql`SELECT ${q(identityServiceConfigs.identityId)} AS identity, ${q(identityServiceConfigs.serviceId)} AS service, ${q(identityServiceConfigs.configId)} AS config FROM ${identityServiceConfigs} WHERE ${overrideProblems}`,
  (r) => `identity ${str(r.identity)}: the override of service ${str(r.service)} with config ${str(r.config)} names a missing identity, service or config, or a config of another type`,
  (db) => [db.delete(identityServiceConfigs).where(overrideProblems)],
);

// ---------------------------------------------------------------------------------------------------
// Identities and what belongs to them.

const identityReferences: Checker = (() => {
  const noPolicy = missing(authPolicies, authPolicies.id, identities.authPolicyId);
  const noType = missing(identityTypes, identityTypes.id, identities.typeId);
  return simple(
    'identity-references',
    sql`SELECT ${q(identities.id)} AS id, ${q(identities.authPolicyId)} AS policy, ${q(identities.typeId)} AS type, ${noPolicy} AS no_policy FROM ${identities} WHERE ${noPolicy} OR ${noType}`,
    (r) => (Number(r.no_policy) ? `identity ${str(r.id)} has auth policy ${str(r.policy)}, which does not exist` : `identity ${str(r.id)} has identity type ${str(r.type)}, which does not exist`),
    // The values an identity gets when none is given (§8.1, §8.3).
    (db) => [db.update(identities).set({ authPolicyId: 'default' }).where(noPolicy), db.update(identities).set({ typeId: 'Default' }).where(noType)],
  );
})();

/**
 * Failed-attempt counters are keyed by authenticator id, or `mfa:<identity id>`, besides the one row no
 * authenticator owns (src/auth/repo.ts); keys of other shapes are left alone.
 */
const attemptProblems = sql`((instr(${q(authAttempts.authenticatorId)}, ':') = 0 AND ${q(authAttempts.authenticatorId)} <> ${NO_AUTHENTICATOR} AND NOT EXISTS (SELECT 1 FROM ${authenticators} WHERE ${q(authenticators.id)} = ${q(authAttempts.authenticatorId)}))
  OR (substr(${q(authAttempts.authenticatorId)}, 1, 4) = 'mfa:' AND NOT EXISTS (SELECT 1 FROM ${identities} WHERE ${q(identities.id)} = substr(${q(authAttempts.authenticatorId)}, 5))))`;

const enrollmentProblems = sql`(${identityMissing(enrollments.identityId)} OR ${missing(cas, cas.id, enrollments.caId)})`;
const sessionCertificateProblems = sql`(${identityMissing(apiSessionCertificates.identityId)} OR ${missing(apiSessions, apiSessions.id, apiSessionCertificates.apiSessionId)})`;
const terminatorProblems = sql`(${missing(services, services.id, terminators.serviceId)} OR (${missing(edgeRouters, edgeRouters.id, terminators.routerId)} AND ${missing(transitRouters, transitRouters.id, terminators.routerId)}))`;

// ---------------------------------------------------------------------------------------------------
// Policy links (docs/adr/0006-policy-links.md).

const KINDS: { kind: PolicyKind; table: typeof servicePolicies | typeof edgeRouterPolicies | typeof serviceEdgeRouterPolicies }[] = [
  { kind: 'sp', table: servicePolicies },
  { kind: 'erp', table: edgeRouterPolicies },
  { kind: 'serp', table: serviceEdgeRouterPolicies },
];

/** Link rows that belong to no policy: the policy of their type is gone, or its kind has no such role. */
const linkBelongs = sql`((${q(policyLinks.policyType)} IN ('dial', 'bind') AND ${q(policyLinks.role)} IN ('identity', 'service') AND EXISTS (SELECT 1 FROM ${servicePolicies} WHERE ${q(servicePolicies.id)} = ${q(policyLinks.policyId)}))
  OR (${q(policyLinks.policyType)} = 'erp' AND ${q(policyLinks.role)} IN ('identity', 'router') AND EXISTS (SELECT 1 FROM ${edgeRouterPolicies} WHERE ${q(edgeRouterPolicies.id)} = ${q(policyLinks.policyId)}))
  OR (${q(policyLinks.policyType)} = 'serp' AND ${q(policyLinks.role)} IN ('service', 'router') AND EXISTS (SELECT 1 FROM ${serviceEdgeRouterPolicies} WHERE ${q(serviceEdgeRouterPolicies.id)} = ${q(policyLinks.policyId)})))`;

/** Rows of `policy_links` examined per slice for links that belong to no policy (a rowid window). */
const LINK_WINDOW = 100_000;

const orphanLinks: Checker = {
  name: 'policy-links-without-policy',
  async slice(db, cursor, limit) {
    const from = Number(cursor ?? 0);
    const to = from + LINK_WINDOW;
    const window = sql`${policyLinks}.rowid > ${from} AND ${policyLinks}.rowid <= ${to} AND NOT ${linkBelongs}`;
    const [rows, [last]] = await Promise.all([
      db.all<Row>(sql`SELECT ${q(policyLinks.policyId)} AS policy, ${q(policyLinks.role)} AS role, ${q(policyLinks.entityId)} AS entity, ${q(policyLinks.policyType)} AS type FROM ${policyLinks} WHERE ${window} LIMIT ${limit + 1}`),
      db.all<{ n: number | null }>(sql`SELECT max(rowid) AS n FROM ${policyLinks}`),
    ]);
    return {
      findings: rows.slice(0, limit).map((r) => `policy link ${str(r.type)} of policy ${str(r.policy)} to ${str(r.role)} ${str(r.entity)} belongs to no policy of that type and role`),
      more: rows.length > limit,
      fix: rows.length > 0 ? [db.delete(policyLinks).where(window), bumpGeneration(db)] : [],
      next: to < Number(last?.n ?? 0) ? String(to) : null,
    };
  },
};

/** How long a slice of the paged checkers may take before it stops taking more work (one unit at least). */
const SLICE_MS = 100;
const POLICY_PAGE = 20;

type PolicyRow = { id: string; name: string; semantic: string; type?: string } & Record<string, unknown>;

interface ListResult {
  findings: string[];
  fix: Statement[];
}

/**
 * One role list of one policy: its links recomputed with the matching its writes use (`entityMatch`)
 * and compared with the stored rows. An entity the policy matches without its row is missing; a row for
 * an entity the policy does not match (or of the wrong type) is stale. The repair replaces exactly those
 * rows, guarded by the policy's role lists as examined (a policy written since rewrote its links itself).
 */
async function examineList(db: Db, kind: PolicyKind, table: SQLiteTable, p: PolicyRow, list: (typeof ROLE_LISTS)[number], room: number): Promise<ListResult & { differs: boolean }> {
  const lists = ROLE_LISTS.filter((l) => l.kind === kind);
  const type = kind === 'sp' ? (p.type === 'Bind' ? 'bind' : 'dial') : kind;
  const guardParts = [sql`zg.id = ${p.id}`, sql`zg.semantic = ${p.semantic}`, ...lists.map((l) => sql`zg.${sql.identifier(l.column.name)} = ${str(p[l.field])}`)];
  if (kind === 'sp') guardParts.push(sql`zg.type = ${str(p.type)}`);
  const guard = sql`EXISTS (SELECT 1 FROM ${table} AS zg WHERE ${sql.join(guardParts, sql` AND `)})`;
  const e = ENTITY_TABLES[list.role];
  const match = entityMatch(list.role, readJson<string[]>(str(p[list.field]), []), p.semantic as Semantic) ?? sql`0`;
  const absent = await db.all<Row>(
    sql`SELECT ${q(e.id)} AS id FROM ${e.table} WHERE ${match} AND NOT EXISTS (SELECT 1 FROM ${policyLinks} AS zl WHERE zl.policy_id = ${p.id} AND zl.role = ${list.role} AND zl.entity_id = ${q(e.id)} AND zl.policy_type = ${type}) LIMIT ${room + 1}`,
  );
  const stale = await db.all<Row>(
    sql`SELECT ${q(policyLinks.entityId)} AS id, ${q(policyLinks.policyType)} AS type FROM ${policyLinks} WHERE ${q(policyLinks.policyId)} = ${p.id} AND ${q(policyLinks.role)} = ${list.role}
      AND (${q(policyLinks.policyType)} <> ${type} OR NOT EXISTS (SELECT 1 FROM ${e.table} WHERE ${q(e.id)} = ${q(policyLinks.entityId)} AND ${match})) LIMIT ${room + 1}`,
  );
  if (absent.length === 0 && stale.length === 0) return { findings: [], fix: [], differs: false };
  const label = `${KIND_LABEL[kind]} ${p.id} (${p.name})`;
  const findings = [
    ...absent.map((r) => `${label}: matches ${ROLE_LABEL[list.role]} ${str(r.id)}, but its policy link is missing`),
    ...stale.map((r) => (str(r.type) !== type ? `${label}: its ${str(r.type)} policy link to ${ROLE_LABEL[list.role]} ${str(r.id)} has the wrong type (${type})` : `${label}: has a policy link to ${ROLE_LABEL[list.role]} ${str(r.id)}, which it does not match`)),
  ];
  const fix: Statement[] = [
    db.delete(policyLinks).where(
      sql`${q(policyLinks.policyId)} = ${p.id} AND ${q(policyLinks.role)} = ${list.role}
        AND (${q(policyLinks.policyType)} <> ${type} OR NOT EXISTS (SELECT 1 FROM ${e.table} WHERE ${q(e.id)} = ${q(policyLinks.entityId)} AND ${match})) AND ${guard}`,
    ),
    db
      .insert(policyLinks)
      .select(sql`SELECT ${p.id}, ${list.role}, ${q(e.id)}, ${type} FROM ${e.table} WHERE ${match} AND NOT EXISTS (SELECT 1 FROM ${policyLinks} AS zl WHERE zl.policy_id = ${p.id} AND zl.role = ${list.role} AND zl.entity_id = ${q(e.id)}) AND ${guard}`),
  ];
  // Cached totals counted from wrong links are stale.
  if (kind === 'sp') fix.push(bumpGeneration(db));
  return { findings, fix, differs: true };
}

/** Where the policy-link check carries on: the kind, the policy (ids ascending) and its next role list. */
interface PolicyCursor {
  kind: number;
  id: string;
  list: number;
}

/** Every policy's links, one role list at a time, as many as fit in SLICE_MS (docs/adr/0006-policy-links.md). */
const policyLinkRows: Checker = {
  name: 'policy-links',
  async slice(db, cursor, limit) {
    const started = Date.now();
    const at = readJson<PolicyCursor>(cursor, { kind: 0, id: '', list: 0 });
    const findings: string[] = [];
    let more = false;
    const fix: Statement[] = [];
    let examined = 0;
    while (at.kind < KINDS.length) {
      const k = KINDS[at.kind];
      const lists = ROLE_LISTS.filter((l) => l.kind === k.kind);
      const table = k.table as typeof servicePolicies;
      const rows = (await db.select().from(table).where(sql`${q(table.id)} >= ${at.id}`).orderBy(table.id).limit(POLICY_PAGE)) as unknown as PolicyRow[];
      const todo = rows.filter((p) => p.id !== at.id || at.list < lists.length);
      if (todo.length === 0) {
        Object.assign(at, { kind: at.kind + 1, id: '', list: 0 });
        continue;
      }
      for (const p of todo) {
        for (let i = p.id === at.id ? at.list : 0; i < lists.length; i++) {
          if (examined > 0 && Date.now() - started >= SLICE_MS) return { findings, more, fix, next: JSON.stringify({ kind: at.kind, id: p.id, list: i }) };
          examined += 1;
          const result = await examineList(db, k.kind, k.table, p, lists[i], Math.max(0, limit - findings.length));
          for (const f of result.findings) {
            if (findings.length < limit) findings.push(f);
            else more = true;
          }
          fix.push(...result.fix);
        }
        Object.assign(at, { id: p.id, list: lists.length });
      }
    }
    return { findings, more, fix, next: null };
  },
};

// ---------------------------------------------------------------------------------------------------
// Each service's Dial/Bind policies kept beside its links (service_grant_sets, docs/adr/0006-policy-links.md).

const GRANT_SET_PAGE = 200;

/** The same policies and types, in any order. */
function sameGrants(kept: string, now: string): boolean {
  const key = (text: string) => JSON.stringify(readJson<[string, string][]>(text, []).map(([p, t]) => `${t}:${p}`).sort());
  return kept === now || key(kept) === key(now);
}

/** Every service's kept set against its links, a page of services at a time; a wrong or missing set is written again. */
const serviceGrantSetRows: Checker = {
  name: 'service-grant-sets',
  async slice(db, cursor, limit) {
    const rows = await db.all<{ id: string; kept: string | null; now: string }>(
      sql`SELECT ${q(services.id)} AS id, (SELECT ${q(serviceGrantSets.grants)} FROM ${serviceGrantSets} WHERE ${q(serviceGrantSets.serviceId)} = ${q(services.id)}) AS kept, ${grantSetOf(q(services.id))} AS now
        FROM ${services} WHERE ${q(services.id)} > ${cursor ?? ''} ORDER BY ${q(services.id)} LIMIT ${GRANT_SET_PAGE}`,
    );
    const wrong = rows.filter((r) => r.kept === null || !sameGrants(r.kept, r.now));
    const findings = wrong.slice(0, limit).map((r) => (r.kept === null ? `service ${r.id} has no kept set of its Dial/Bind policies` : `service ${r.id}: its kept set of Dial/Bind policies differs from its policy links`));
    // Written again from the links as the repair's batch finds them: right whatever happened since.
    const fix = wrong.length > 0 ? grantSetsOf(db, sql`${q(services.id)} IN (SELECT value FROM json_each(${JSON.stringify(wrong.map((r) => r.id))}))`) : [];
    return { findings, more: wrong.length > limit, fix, next: rows.length < GRANT_SET_PAGE ? null : rows[rows.length - 1].id };
  },
};

// ---------------------------------------------------------------------------------------------------
// Cached totals of `GET /identities/{id}/services` (access_counts, docs/adr/0006-policy-links.md).

const POLICY_TYPE_KEYS = ['bind', 'dial', 'bind,dial'];
const countProblems = sql`(${identityMissing(accessCounts.identityId)} OR ${q(accessCounts.generation)} > ${currentGeneration} OR ${q(accessCounts.policyTypes)} NOT IN (SELECT value FROM json_each(${JSON.stringify(POLICY_TYPE_KEYS)})))`;
const accessCountRows = simple(
  'access-counts-without-identity',
  sql`SELECT ${q(accessCounts.identityId)} AS identity, ${q(accessCounts.policyTypes)} AS types FROM ${accessCounts} WHERE ${countProblems}`,
  (r) => `cached service total of identity ${str(r.identity)} (${str(r.types)}) belongs to a missing identity, an unknown policy type or a generation not reached yet`,
  (db) => [db.delete(accessCounts).where(countProblems)],
);

const COUNTS_PAGE = 50;

/** Every total cached at the current generation (the only ones served) recounted from the links, as many as fit in SLICE_MS. */
const accessCountTotals: Checker = {
  name: 'access-counts',
  async slice(db, cursor, limit) {
    const started = Date.now();
    const [afterId, afterTypes] = cursor ? readJson<[string, string]>(cursor, ['', '']) : ['', ''];
    const rows = await db.all<{ identity: string; types: string; generation: number; total: number }>(
      sql`SELECT ${q(accessCounts.identityId)} AS identity, ${q(accessCounts.policyTypes)} AS types, ${q(accessCounts.generation)} AS generation, ${q(accessCounts.total)} AS total FROM ${accessCounts}
        WHERE (${q(accessCounts.identityId)}, ${q(accessCounts.policyTypes)}) > (${afterId}, ${afterTypes}) AND ${q(accessCounts.generation)} = ${currentGeneration}
        ORDER BY ${q(accessCounts.identityId)}, ${q(accessCounts.policyTypes)} LIMIT ${COUNTS_PAGE}`,
    );
    const findings: string[] = [];
    let more = false;
    const fix: Statement[] = [];
    for (const [i, r] of rows.entries()) {
      if (i > 0 && Date.now() - started >= SLICE_MS) return { findings, more, fix, next: JSON.stringify([rows[i - 1].identity, rows[i - 1].types]) };
      if (!POLICY_TYPE_KEYS.includes(r.types)) continue;
      const types = r.types.split(',') as ('dial' | 'bind')[];
      const walk = await identityServiceWalk(db, r.identity, types);
      // The count and the generation it saw, in one statement (one snapshot).
      const [now] = await db.all<{ generation: number; total: number }>(
        sql`SELECT ${currentGeneration} AS generation, (SELECT count(*) FROM ${services} WHERE ${reachable('service', 'identity', r.identity, types, walk === 'none' ? 'source' : walk)}) AS total`,
      );
      if (Number(now.generation) !== Number(r.generation) || Number(now.total) === Number(r.total)) continue;
      if (findings.length < limit) findings.push(`cached service total of identity ${r.identity} (${r.types}) is ${r.total}, its policy links give ${now.total}`);
      else more = true;
      // Dropped: the next read counts again. Guarded by what was examined.
      fix.push(
        db
          .delete(accessCounts)
          .where(and(eq(accessCounts.identityId, r.identity), eq(accessCounts.policyTypes, r.types), eq(accessCounts.generation, r.generation), eq(accessCounts.total, r.total))),
      );
    }
    const last = rows[rows.length - 1];
    return { findings, more, fix, next: rows.length < COUNTS_PAGE ? null : JSON.stringify([last.identity, last.types]) };
  },
};

/**
 * Every checker, in the order a run goes through them (repairs of one are visible to the next). New
 * tables with derived or dependent rows add their checker here (see the header).
 */
// Dial/bind sessions end with their API session, identity and service (triggers) and with their access (batches).
const sessionProblems = sql`(${missing(apiSessions, apiSessions.id, sessions.apiSessionId)} OR ${missing(identities, identities.id, sessions.identityId)} OR ${missing(services, services.id, sessions.serviceId)})`;
const sessionWithoutAccess = sql`NOT ${sessionProblems} AND ${sessionLacksAccess}`;

export const CHECKERS: readonly Checker[] = [
  roleSets,
  ...ROLE_LISTS.map(danglingRefs),
  configsOfMissingTypes,
  serviceConfigAttachments,
  serviceConfigOverrides,
  identityReferences,
  orphans('authenticators-without-identity', authenticators, authenticators.id, identityMissing(authenticators.identityId), (id) => `authenticator ${id} belongs to a missing identity`),
  orphans('auth-attempts-without-owner', authAttempts, authAttempts.authenticatorId, attemptProblems, (id) => `failed-attempt counter ${id} belongs to a missing authenticator or identity`),
  orphans('enrollments-without-owner', enrollments, enrollments.id, enrollmentProblems, (id) => `enrollment ${id} belongs to a missing identity or CA`),
  orphans('mfa-without-identity', mfas, mfas.id, identityMissing(mfas.identityId), (id) => `MFA enrolment ${id} belongs to a missing identity`),
  orphans('api-sessions-without-identity', apiSessions, apiSessions.id, identityMissing(apiSessions.identityId), (id) => `API session ${id} belongs to a missing identity`),
  orphans('api-session-certificates-without-owner', apiSessionCertificates, apiSessionCertificates.id, sessionCertificateProblems, (id) => `API session certificate ${id} belongs to a missing API session or identity`),
  orphans('terminators-without-service-or-router', terminators, terminators.id, terminatorProblems, (id) => `terminator ${id} belongs to a missing service or router`),
  orphans('sessions-without-owner', sessions, sessions.id, sessionProblems, (id) => `session ${id} belongs to a missing API session, identity or service`),
  orphanLinks,
  policyLinkRows,
  // After the links are exact: the sets kept from them.
  orphans('service-grant-sets-without-service', serviceGrantSets, serviceGrantSets.serviceId, missing(services, services.id, serviceGrantSets.serviceId), (id) => `kept Dial/Bind policies of service ${id} belong to a missing service`),
  serviceGrantSetRows,
  // After the links are exact: a session stays only while a Dial/Bind link still grants it (§6.4).
  orphans('sessions-without-access', sessions, sessions.id, sessionWithoutAccess, (id) => `session ${id} is no longer granted by any service policy`),
  accessCountRows,
  accessCountTotals,
];
