/**
 * Posture evaluation for the client's service list (`postureQueries`, reference model-and-policies §4.4)
 * and session creation (§6.1 step 3), and the record of refused session requests (§7.6). Evaluated when
 * asked, from what the store holds: the checks the service policies match and the posture the identity
 * and its API session reported (docs/posture.md).
 */
import { links } from '../crud/render.js';
import { atomic, type Db } from '../db/client.js';
import type { Deps } from '../deps.js';
import type { PostureQuery } from '../generated/client-types.js';
import type { PolicyFailure, SdkInfo } from '../generated/management-types.js';
import { readJson } from '../lib/json.js';
import { iso } from '../lib/time.js';
import { checkSettings, evaluateCheck, movesWithTime, type AnyPostureCheckFailure, failureDetail, promptedAt, queryProcesses, type CheckResult, type CheckSettings, type PostureCheckRow, type PostureSnapshot, type ProcessData } from './checks.js';
import { addFailedRequest, anyPostureCheck, postureInputs, type PostureInputs, type ResponseRow } from './repo.js';

/** Whether any posture check exists at all (§4.4 / §6.1: when none, posture is skipped and placeholders render). One cheap statement. */
export function postureChecksExist(db: Db): Promise<boolean> {
  return anyPostureCheck(db);
}

export interface PolicyPosture {
  policyId: string;
  /** All its checks pass (a policy without checks passes). */
  isPassing: boolean;
  /** One query per posture check the policy matches, rendered per §4.4. */
  postureQueries: PostureQuery[];
  /** The failing checks, for the 409 cause data of §6.1. */
  failures: { id: string; typeId: string; isPassing: false }[];
  /** The failing checks with what was expected and reported, for failed service requests (§7.6). */
  failureDetails: AnyPostureCheckFailure[];
}

/** The posture data rows of the store as the evaluator reads them. */
export function snapshotOf(rows: readonly ResponseRow[]): PostureSnapshot {
  const snapshot: PostureSnapshot = { processes: new Map(), paths: new Map(), session: { passedMfaAt: null, wokenAt: null, unlockedAt: null, sdkInfo: null } };
  for (const row of rows) {
    const data = readJson<Record<string, any>>(row.data, {});
    const at = Number(row.at);
    switch (row.kind) {
      case 'OS':
        snapshot.os = { postureCheckId: row.checkId, type: String(data.type ?? ''), version: String(data.version ?? ''), build: String(data.build ?? ''), updatedAt: at };
        break;
      case 'MAC':
        snapshot.mac = { postureCheckId: row.checkId, addresses: Array.isArray(data.addresses) ? data.addresses : [], updatedAt: at };
        break;
      case 'DOMAIN':
        snapshot.domain = { postureCheckId: row.checkId, domain: String(data.domain ?? ''), updatedAt: at };
        break;
      case 'PROCESS':
      case 'PATH': {
        const p: ProcessData = {
          postureCheckId: row.checkId,
          path: String(data.path ?? ''),
          isRunning: data.isRunning === true,
          hash: String(data.hash ?? ''),
          signerFingerprints: Array.isArray(data.signerFingerprints) ? data.signerFingerprints : [],
          updatedAt: at,
        };
        (row.kind === 'PROCESS' ? snapshot.processes : snapshot.paths).set(row.key, p);
        break;
      }
      case 'SESSION':
        snapshot.session = {
          passedMfaAt: typeof data.passedMfaAt === 'number' ? data.passedMfaAt : null,
          wokenAt: typeof data.wokenAt === 'number' ? data.wokenAt : null,
          unlockedAt: typeof data.unlockedAt === 'number' ? data.unlockedAt : null,
          sdkInfo: data.sdkInfo && typeof data.sdkInfo === 'object' ? (data.sdkInfo as SdkInfo) : null,
        };
        break;
    }
  }
  return snapshot;
}

/** One check as a posture query (§4.4): base fields, type, result, timeouts, processes. */
function renderQuery(row: PostureCheckRow, settings: CheckSettings, result: CheckResult, data: PostureSnapshot): PostureQuery {
  // For MFA checks a later wake/unlock replaces updatedAt: it tells clients to prompt again.
  const prompted = promptedAt(settings, data.session);
  const { process, processes } = queryProcesses(settings);
  return {
    id: row.id,
    createdAt: iso(row.createdAt),
    updatedAt: iso(prompted !== null && prompted > row.updatedAt ? prompted : row.updatedAt),
    tags: readJson<Record<string, unknown>>(row.tags, {}),
    _links: links(`./posture-checks/${row.id}`),
    queryType: row.typeId,
    isPassing: result.isPassing,
    timeout: result.timeout,
    timeoutRemaining: result.timeoutRemaining,
    process: process ?? null,
    processes: processes ?? null,
  };
}

/**
 * Evaluates the posture checks of the given service policies for the identity and API session, now.
 * One store read whatever the number of policies (the checks the policies' postureCheckRoles match, and
 * the identity's + API session's posture data), so a 500-service page costs the same as one service.
 */
export async function evaluatePolicies(deps: Deps, identityId: string, apiSessionId: string, policyIds: readonly string[], read?: PostureInputs): Promise<Map<string, PolicyPosture>> {
  const out = new Map<string, PolicyPosture>();
  const unique = [...new Set(policyIds)];
  for (const policyId of unique) out.set(policyId, { policyId, isPassing: true, postureQueries: [], failures: [], failureDetails: [] });
  if (unique.length === 0) return out;
  // `read`: the inputs as another statement already read them (checks of at least these policies).
  const { checks, responses } = read ?? (await postureInputs(deps.db, unique, identityId, apiSessionId));
  if (checks.length === 0) return out;
  const data = snapshotOf(responses);
  const now = deps.now();
  // Each check is evaluated and rendered once, however many policies match it (the objects are shared).
  for (const { check, policyIds: matching } of checks) {
    const settings = checkSettings(check);
    const result = evaluateCheck(settings, check.id, data, now);
    const query = renderQuery(check, settings, result, data);
    const failure = result.isPassing ? undefined : { id: check.id, typeId: check.typeId, isPassing: false as const };
    const detail = result.isPassing ? undefined : failureDetail(check, settings, data, now);
    for (const policyId of matching) {
      const policy = out.get(policyId);
      if (!policy) continue;
      policy.postureQueries.push(query);
      if (failure && detail) {
        policy.isPassing = false;
        policy.failures.push(failure);
        policy.failureDetails.push(detail);
      }
    }
  }
  return out;
}

/** Whether evaluating these inputs may give another result at another moment (`movesWithTime` of any check). */
export function postureMovesWithTime(inputs: PostureInputs): boolean {
  if (inputs.checks.length === 0) return false;
  const session = snapshotOf(inputs.responses.filter((r) => r.kind === 'SESSION')).session;
  return inputs.checks.some(({ check }) => movesWithTime(checkSettings(check), session));
}

/** Records a failed service request (§7.6), keeping at most 100 per identity (oldest dropped), in one batch. */
export async function recordFailedServiceRequest(
  deps: Deps,
  request: {
    identityId: string;
    apiSessionId: string;
    serviceId: string;
    serviceName: string;
    sessionType: 'Dial' | 'Bind';
    policies: { policyId: string; policyName: string }[];
    evaluation: Map<string, PolicyPosture>;
  },
): Promise<void> {
  const policyFailures: PolicyFailure[] = request.policies
    .filter((p) => request.evaluation.get(p.policyId)?.isPassing === false)
    .map((p) => ({ policyId: p.policyId, policyName: p.policyName, checks: request.evaluation.get(p.policyId)!.failureDetails }));
  await atomic(
    deps.db,
    addFailedRequest(deps.db, {
      identityId: request.identityId,
      apiSessionId: request.apiSessionId,
      serviceId: request.serviceId,
      serviceName: request.serviceName,
      sessionType: request.sessionType,
      when: deps.now(),
      policyFailures: JSON.stringify(policyFailures),
    }),
  );
}
