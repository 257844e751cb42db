import { and, eq, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { qualified as q, type Statement } from '../crud/repo.js';
import type { Db } from '../db/client.js';
import { edgeRouters, enrollments, transitRouters } from '../db/schema/index.js';
import { enrollmentIsLive } from './repo.js';

/** The two kinds of router that enroll: edge routers (`erott`) and transit routers (`trott`). */
export type RouterKind = 'edge' | 'transit';

const TABLES = { edge: edgeRouters, transit: transitRouters } as const;

function ownerColumn(kind: RouterKind): SQLiteColumn {
  return kind === 'edge' ? enrollments.edgeRouterId : enrollments.transitRouterId;
}

export async function routerExists(db: Db, kind: RouterKind, id: string): Promise<boolean> {
  const t = TABLES[kind];
  return (await db.select({ id: t.id }).from(t).where(eq(t.id, id)).limit(1)).length > 0;
}

/**
 * The router whose current client certificate has this fingerprint: edge routers first, then transit
 * routers (reference auth-and-pki §6.6). One indexed read per table.
 */
export async function routerByFingerprint(db: Db, fingerprint: string): Promise<{ kind: RouterKind; id: string } | undefined> {
  for (const kind of ['edge', 'transit'] as const) {
    const t = TABLES[kind];
    const rows = await db.select({ id: t.id }).from(t).where(eq(t.fingerprint, fingerprint)).limit(1);
    if (rows[0]) return { kind, id: rows[0].id };
  }
  return undefined;
}

/** What enrolling (or extending) writes on the router: its new client certificate. */
export interface RouterCertificate {
  fingerprint: string;
  /** The client chain PEM; stored for edge routers only (transit routers keep the fingerprint). */
  certPem: string;
}

function certificateValues(kind: RouterKind, cert: RouterCertificate, now: number) {
  return kind === 'edge' ? { fingerprint: cert.fingerprint, certPem: cert.certPem, updatedAt: now } : { fingerprint: cert.fingerprint, updatedAt: now };
}

/**
 * Marks the router enrolled with its new certificate, only while the enrollment it pays with is still live
 * (consumeEnrollment's rule for extra statements): a concurrent attempt that lost changes nothing.
 */
export function routerEnrolledStatement(db: Db, kind: RouterKind, routerId: string, enrollment: { id: string; tokenHash: string }, cert: RouterCertificate, now: number): Statement {
  const t = TABLES[kind] as typeof edgeRouters;
  return db
    .update(t)
    .set({ ...certificateValues(kind, cert, now), isVerified: true })
    .where(and(eq(t.id, routerId), enrollmentIsLive(enrollment, now)));
}

/**
 * Replaces the router's certificate only while `previous` is still its certificate: of concurrent
 * extensions with one certificate, exactly one applies (the row count decides). Returns whether it applied.
 */
export async function replaceRouterCertificate(db: Db, kind: RouterKind, routerId: string, previous: string, cert: RouterCertificate, now: number): Promise<boolean> {
  const t = TABLES[kind] as typeof edgeRouters;
  const rows = await db
    .update(t)
    .set(certificateValues(kind, cert, now))
    .where(and(eq(t.id, routerId), eq(t.fingerprint, previous)))
    .returning({ id: t.id });
  return rows.length === 1;
}

/** A router's enrollments (deleted with the router, or replaced by a re-enrollment). */
export function routerEnrollmentsCascade(db: Db, kind: RouterKind, routerId: string): Statement {
  return db.delete(enrollments).where(eq(ownerColumn(kind), routerId));
}

/** Back to "must enroll": no certificate, not verified (the re-enrollment's batch also replaces the enrollment). */
export function routerUnenrolledStatement(db: Db, kind: RouterKind, routerId: string, now: number): Statement {
  const t = TABLES[kind] as typeof edgeRouters;
  const values = kind === 'edge' ? { fingerprint: null, certPem: null, isVerified: false, updatedAt: now } : { fingerprint: null, isVerified: false, updatedAt: now };
  return db.update(t).set(values).where(eq(t.id, routerId));
}

/**
 * The router's pending enrollment as one correlated sub-query (a JSON object with the sealed JWT), so a
 * router list stays one read.
 */
export function routerEnrollmentSummary(kind: RouterKind, routerId: SQLiteColumn = TABLES[kind].id) {
  return sql<string | null>`(SELECT json_object('jwt', ${q(enrollments.jwtSealed)}, 'createdAt', ${q(enrollments.createdAt)}, 'expiresAt', ${q(enrollments.expiresAt)}) FROM ${enrollments} WHERE ${q(ownerColumn(kind))} = ${q(routerId)} LIMIT 1)`;
}
