import type { Deps } from '../../deps.js';
import type { ApiSessionPostureData, FailedServiceRequest, PolicyFailure, PostureData, SdkInfo } from '../../generated/management-types.js';
import { readJson } from '../../lib/json.js';
import { iso } from '../../lib/time.js';
import { MFA_PROMPT_GRACE_MS, ZERO_TIME } from '../../posture/checks.js';
import { snapshotOf } from '../../posture/evaluate.js';
import { failedRequestsOf, identityResponseRows, identitySessionRows } from '../../posture/repo.js';
import { nonEmptyStrings } from '../../lib/objects.js';

/** The posture-data view lists at most this many of the identity's live API sessions, most recently active first. */
const MAX_SESSIONS = 100;

const at = (ms: number | null | undefined) => iso(ms) ?? ZERO_TIME;

/** No wake (or unlock) after MFA that is older than the grace period: MFA prompted on that event still holds. */
function passedSince(event: number | null, passedMfaAt: number | null, now: number): boolean {
  return passedMfaAt !== null && (event === null || event < passedMfaAt || now - MFA_PROMPT_GRACE_MS < event);
}

/**
 * `GET /identities/{id}/posture-data` (reference model-and-policies §7.5): what the identity reported, and
 * per live API session its MFA, wake/unlock and SDK info. Always 200: an unknown identity has empty data.
 * Where the specification requires a time and there is none, Go's zero time is rendered.
 */
export async function identityPostureData(deps: Deps, identityId: string): Promise<PostureData> {
  const now = deps.now();
  const [rows, sessions] = await Promise.all([identityResponseRows(deps.db, identityId), identitySessionRows(deps.db, identityId, now - deps.config.sessionTimeoutSeconds * 1000, MAX_SESSIONS)]);
  const data = snapshotOf(rows);
  const base = (d: { postureCheckId: string; updatedAt: number } | undefined) => ({ lastUpdatedAt: at(d?.updatedAt), postureCheckId: d?.postureCheckId ?? '', timedOut: false });
  const apiSessionPostureData: Record<string, ApiSessionPostureData> = {};
  for (const s of sessions) {
    const passedMfaAt = s.passedMfaAt === null ? null : Number(s.passedMfaAt);
    const wokenAt = s.wokenAt === null ? null : Number(s.wokenAt);
    const unlockedAt = s.unlockedAt === null ? null : Number(s.unlockedAt);
    const entry: ApiSessionPostureData = {
      mfa: { apiSessionId: s.id, passedMfa: passedMfaAt !== null, passedAt: at(passedMfaAt), passedOnWake: passedSince(wokenAt, passedMfaAt, now), passedOnUnlock: passedSince(unlockedAt, passedMfaAt, now) },
      endpointState: { wokenAt: at(wokenAt), unlockedAt: at(unlockedAt) },
    };
    // Only the non-empty fields, as on the identity (sessions recorded before may hold padded copies).
    const sdkInfo = readJson<Record<string, unknown> | null>(s.sdkInfo, null);
    if (sdkInfo) entry.sdkInfo = nonEmptyStrings(sdkInfo) as SdkInfo;
    apiSessionPostureData[s.id] = entry;
  }
  return {
    os: { ...base(data.os), type: data.os?.type ?? '', version: data.os?.version ?? '', build: data.os?.build ?? '' },
    mac: { ...base(data.mac), addresses: data.mac?.addresses ?? [] },
    domain: { ...base(data.domain), domain: data.domain?.domain ?? '' },
    processes: [...data.processes.values()].map((p) => ({ ...base(p), isRunning: p.isRunning, binaryHash: p.hash, signerFingerprints: p.signerFingerprints })),
    apiSessionPostureData,
  };
}

/** `GET /identities/{id}/failed-service-requests` (§7.6): at most 100, oldest first; [] for an unknown identity. */
export async function identityFailedServiceRequests(deps: Deps, identityId: string): Promise<FailedServiceRequest[]> {
  const rows = await failedRequestsOf(deps.db, identityId);
  return rows.map((r) => ({
    when: iso(r.when),
    apiSessionId: r.apiSessionId,
    serviceId: r.serviceId,
    serviceName: r.serviceName,
    sessionType: r.sessionType,
    policyFailures: readJson<PolicyFailure[]>(r.policyFailures, []),
  }));
}
