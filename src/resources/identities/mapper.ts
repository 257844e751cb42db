import { entityRef, links } from '../../http/envelope.js';
import { isDisabled, type IdentityRow } from '../../http/session.js';
import { readJson } from '../../lib/json.js';
import { iso } from '../../lib/time.js';
import type { IdentityExtraValues } from './repo.js';

export interface IdentityExtras {
  authenticators: { updb?: { id: string; username: string }; cert?: { id: string; fingerprint: string } };
  hasApiSession: boolean;
  isMfaEnabled: boolean;
  authPolicyName: string;
  enrollment: Record<string, unknown>;
}

const ENV_EMPTY = { arch: '', os: '', osRelease: '', osVersion: '', domain: '', hostname: '' };
const SDK_EMPTY = { appId: '', appVersion: '', branch: '', revision: '', type: '', version: '' };

export function identityLinks(id: string, authPolicyId: string) {
  return links(`./identities/${id}`, {
    'edge-router-policies': 'edge-router-policies',
    'edge-routers': 'edge-routers',
    'service-policies': 'service-policies',
    services: 'services',
    'posture-data': 'posture-data',
    'failed-service-requests': 'failed-service-requests',
    authenticators: 'authenticators',
    enrollments: 'enrollments',
    'service-configs': 'service-configs',
    'auth-policies': `./auth-policies/${authPolicyId}`,
  });
}

/** The identityDetail shape (reference model-and-policies §8.3). */
export function renderIdentity(row: IdentityRow, extras: IdentityExtras, now: number) {
  const roleAttributes = readJson<string[]>(row.roleAttributes, []);
  return {
    id: row.id,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    tags: readJson(row.tags, {}),
    _links: identityLinks(row.id, row.authPolicyId),
    name: row.name,
    typeId: row.typeId,
    type: entityRef('identity-types', row.typeId, row.typeId),
    isAdmin: row.isAdmin,
    isDefaultAdmin: row.isDefaultAdmin,
    authenticators: extras.authenticators,
    enrollment: extras.enrollment,
    envInfo: { ...ENV_EMPTY, ...readJson(row.envInfo, {}) },
    sdkInfo: { ...SDK_EMPTY, ...readJson(row.sdkInfo, {}) },
    // The spec requires an array; the controller's `null` for an empty set is not spec-valid.
    roleAttributes,
    hasEdgeRouterConnection: false,
    edgeRouterConnectionStatus: 'offline',
    hasApiSession: extras.hasApiSession,
    isMfaEnabled: extras.isMfaEnabled,
    serviceHostingPrecedences: readJson(row.serviceHostingPrecedences, {}),
    serviceHostingCosts: readJson(row.serviceHostingCosts, {}),
    defaultHostingCost: row.defaultHostingCost,
    defaultHostingPrecedence: row.defaultHostingPrecedence,
    appData: readJson(row.appData, {}),
    authPolicyId: row.authPolicyId,
    authPolicy: entityRef('auth-policies', row.authPolicyId, extras.authPolicyName),
    externalId: row.externalId,
    disabled: isDisabled(row, now),
    disabledAt: iso(row.disabledAt),
    disabledUntil: iso(row.disabledUntil),
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
    // MFA enrolments do not exist yet.
    isMfaEnabled: false,
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
