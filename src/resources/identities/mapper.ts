import { entityRef, stringSetOrNull, type Links } from '../../crud/render.js';
import type { EnvInfo, IdentityAuthenticators, IdentityDetail, IdentityEnrollments, SdkInfo, TerminatorPrecedence } from '../../generated/management-types.js';
import { isDisabled } from '../../auth/identity-state.js';
import { readJson } from '../../lib/json.js';
import { nonEmptyStrings } from '../../lib/objects.js';
import { iso } from '../../lib/time.js';
import type { IdentityRow } from './entity.js';
import type { IdentityExtraValues } from './repo.js';

export interface IdentityExtras {
  authenticators: IdentityAuthenticators;
  hasApiSession: boolean;
  isMfaEnabled: boolean;
  authPolicyName: string;
  enrollment: IdentityEnrollments;
}

/**
 * An identity's `envInfo` or `sdkInfo` as the controller renders it: every field of both is `omitempty` in
 * its model, so only the non-empty strings appear, and `{}` for an identity that never logged in. Rows
 * stored padded with `""` (as logins stored them before) render the same.
 */
export function clientInfo<T extends EnvInfo | SdkInfo>(stored: string | null): T {
  return nonEmptyStrings(readJson<Record<string, unknown>>(stored, {})) as T;
}


/** The identity's `_links` (what `links(self, {...})` builds), written out: one literal, no loop. */
function identityLinks(self: string, authPolicyId: string): Links {
  return {
    self: { href: self },
    'edge-router-policies': { href: `${self}/edge-router-policies` },
    'edge-routers': { href: `${self}/edge-routers` },
    'service-policies': { href: `${self}/service-policies` },
    services: { href: `${self}/services` },
    'posture-data': { href: `${self}/posture-data` },
    'failed-service-requests': { href: `${self}/failed-service-requests` },
    authenticators: { href: `${self}/authenticators` },
    enrollments: { href: `${self}/enrollments` },
    'service-configs': { href: `${self}/service-configs` },
    'auth-policies': { href: `./auth-policies/${authPolicyId}` },
  };
}

/** The identity's data-flow trace (`PUT /identities/{id}/trace`, §8.8): on until its expiry. */
type IdentityTrace = { enabled: true; traceId: string; until: string; channels: string[] } | { enabled: false };

function renderTrace(row: IdentityRow, now: number): IdentityTrace {
  if (row.traceId === null || row.traceUntil === null || row.traceUntil <= now) return { enabled: false };
  return { enabled: true, traceId: row.traceId, until: iso(row.traceUntil), channels: readJson<string[]>(row.traceChannels, []) };
}

/**
 * The identityDetail shape (reference model-and-policies §8.3), plus the identity's `trace`.
 *
 * One object literal with every property named, in the order they are rendered: spreading
 * `baseEntity()` into a literal and adding properties after it makes V8 (Node 20) take a slow path for
 * each later property, ~40 µs per identity here against ~3 µs written out (docs/adr/0014-identity-list.md).
 */
export function renderIdentity(row: IdentityRow, extras: IdentityExtras, now: number): IdentityDetail & { trace: IdentityTrace } {
  const self = `./identities/${row.id}`;
  return {
    id: row.id,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    tags: readJson<Record<string, unknown>>(row.tags, {}),
    _links: identityLinks(self, row.authPolicyId),
    name: row.name,
    typeId: row.typeId,
    type: entityRef('identity-types', row.typeId, row.typeId),
    isAdmin: row.isAdmin,
    isDefaultAdmin: row.isDefaultAdmin,
    authenticators: extras.authenticators,
    enrollment: extras.enrollment,
    envInfo: clientInfo<EnvInfo>(row.envInfo),
    sdkInfo: clientInfo<SdkInfo>(row.sdkInfo),
    // The spec requires an array; the controller's `null` for an empty set is not spec-valid.
    roleAttributes: stringSetOrNull(row.roleAttributes),
    hasEdgeRouterConnection: false,
    edgeRouterConnectionStatus: 'offline' as const,
    hasApiSession: extras.hasApiSession,
    isMfaEnabled: extras.isMfaEnabled,
    serviceHostingPrecedences: readJson(row.serviceHostingPrecedences, {}),
    serviceHostingCosts: readJson(row.serviceHostingCosts, {}),
    defaultHostingCost: row.defaultHostingCost,
    // Only the spec's enum values are ever stored (the body is validated against it).
    defaultHostingPrecedence: row.defaultHostingPrecedence as TerminatorPrecedence,
    appData: readJson(row.appData, {}),
    authPolicyId: row.authPolicyId,
    authPolicy: entityRef('auth-policies', row.authPolicyId, extras.authPolicyName),
    externalId: row.externalId,
    disabled: isDisabled(row, now),
    disabledAt: iso(row.disabledAt),
    disabledUntil: iso(row.disabledUntil),
    trace: renderTrace(row, now),
  };
}

/** The detail's extras from the sub-queries selected with the row (repo `identityExtras`). */
export function extrasFromSelected(selected: IdentityExtraValues, authPolicyId: string): IdentityExtras {
  const summary: IdentityExtras['authenticators'] = {};
  for (const a of readJson<{ id: string; method: string; username: string | null; fingerprint: string | null }[]>(selected.authenticatorSummary, [])) {
    if (a.method === 'updb') summary.updb = { id: a.id, username: a.username ?? '' };
    else if (a.method === 'cert') summary.cert = { id: a.id, fingerprint: a.fingerprint ?? '' };
  }
  return {
    authenticators: summary,
    hasApiSession: Boolean(selected.hasApiSession),
    isMfaEnabled: Boolean(selected.isMfaEnabled),
    authPolicyName: selected.authPolicyName ?? authPolicyId,
    // Pending enrollments with their JWT still sealed; the service opens them (openEnrollmentMaps).
    enrollment: enrollmentMap(selected.enrollmentSummary),
  };
}

/** The detail's `enrollment` map (reference auth-and-pki §5.1): `ott`/`ottca`/`updb` = `{id, token, jwt, expiresAt}`. */
function enrollmentMap(summary: string | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of readJson<{ id: string; method: string; caId: string | null; caName: string | null; expiresAt: number; jwt: string }[]>(summary, [])) {
    const entry: Record<string, unknown> = { id: e.id, token: '', jwt: e.jwt, expiresAt: iso(e.expiresAt) };
    if (e.method === 'ottca' && e.caId) Object.assign(entry, { caId: e.caId, ca: entityRef('cas', e.caId, e.caName ?? '') });
    out[e.method] = entry;
  }
  return out;
}
