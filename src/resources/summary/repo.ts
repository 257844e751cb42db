import { count, sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db, Statement } from '../../db/client.js';
import {
  apiSessionCertificates,
  apiSessions,
  authenticators,
  authPolicies,
  cas,
  configs,
  configTypes,
  edgeRouterPolicies,
  edgeRouters,
  enrollments,
  externalJwtSigners,
  identities,
  identityTypes,
  mfas,
  postureChecks,
  serviceEdgeRouterPolicies,
  servicePolicies,
  services,
  sessions,
  terminators,
  transitRouters,
} from '../../db/schema/index.js';

/**
 * The kinds `GET /summary` counts (reference model-and-policies §10.4), each with the tables holding its
 * records; an empty list is a kind this controller does not store (counted 0, no statement). A table
 * added to the store for one of them (posture checks, sessions, ...) is named here.
 */
const KINDS: Record<string, SQLiteTable[]> = {
  apiSessions: [apiSessions],
  apiSessionCertificates: [apiSessionCertificates],
  authPolicies: [authPolicies],
  authenticators: [authenticators],
  cas: [cas],
  configTypes: [configTypes],
  configs: [configs],
  controllers: [],
  edgeRouterPolicies: [edgeRouterPolicies],
  enrollments: [enrollments],
  eventualEvents: [],
  externalJwtSigners: [externalJwtSigners],
  identities: [identities],
  identityTypes: [identityTypes],
  mfas: [mfas],
  postureCheckTypes: [],
  postureChecks: [postureChecks],
  revocations: [],
  // Every router: edge routers are routers too.
  routers: [transitRouters, edgeRouters],
  'routers.edge': [edgeRouters],
  serviceEdgeRouterPolicies: [serviceEdgeRouterPolicies],
  servicePolicies: [servicePolicies],
  // Every service here is an edge service.
  services: [services],
  'services.edge': [services],
  sessions: [sessions],
  terminators: [terminators],
};

function countStatement(db: Db, tables: SQLiteTable[]): Statement {
  if (tables.length === 1) return db.select({ n: count() }).from(tables[0]);
  return db.select({ n: sql<number>`${sql.join(tables.map((t) => sql`(SELECT count(*) FROM ${t})`), sql` + `)}` }).from(sql`(SELECT 1)`);
}

/** One count statement per kind that has records, all in one batch (one round trip, one snapshot). */
export async function summaryCounts(db: Db): Promise<Record<string, number>> {
  const kinds = Object.entries(KINDS).filter(([, tables]) => tables.length > 0);
  const results = (await (db as unknown as { batch(items: Statement[]): Promise<{ n: number }[][]> }).batch(kinds.map(([, tables]) => countStatement(db, tables)))) ?? [];
  const out: Record<string, number> = {};
  for (const [key] of Object.entries(KINDS)) out[key] = 0;
  kinds.forEach(([key], i) => (out[key] = Number(results[i]?.[0]?.n ?? 0)));
  return out;
}
