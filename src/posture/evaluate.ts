/**
 * Posture evaluation (reference model-and-policies §7.3) as services and sessions consume it. This store
 * has no posture checks table yet, so no posture check exists: every policy passes and placeholders
 * render (§4.4), exactly what the controller answers when no check is defined.
 */
import type { Db } from '../db/client.js';
import type { Deps } from '../deps.js';
import type { PostureQuery } from '../generated/client-types.js';

export interface PolicyPosture {
  policyId: string;
  isPassing: boolean;
  postureQueries: PostureQuery[];
  failures: { id: string; typeId: string; isPassing: false }[];
}

/** Whether any posture check exists (when none, posture is skipped and placeholders render). */
export async function postureChecksExist(_db: Db): Promise<boolean> {
  return false;
}

/** The posture of the given service policies for the identity and API session, now. */
export async function evaluatePolicies(_deps: Deps, _identityId: string, _apiSessionId: string, policyIds: readonly string[]): Promise<Map<string, PolicyPosture>> {
  return new Map(policyIds.map((policyId) => [policyId, { policyId, isPassing: true, postureQueries: [], failures: [] }]));
}

/** Records a failed service request (§7.6); none can fail while no posture check exists. */
export async function recordFailedServiceRequest(_deps: Deps, _request: { identityId: string; apiSessionId: string; serviceId: string; serviceName: string; sessionType: 'Dial' | 'Bind'; policies: { policyId: string; policyName: string }[]; evaluation: Map<string, PolicyPosture> }): Promise<void> {}
