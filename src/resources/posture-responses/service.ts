import { atomic } from '../../db/client.js';
import type { Deps } from '../../deps.js';
import { fieldError } from '../../errors.js';
import type { PostureResponse, PostureResponseCreate } from '../../generated/client-types.js';
import type { RequestSession } from '../../http/session.js';
import { textProblem } from '../../lib/limits.js';
import { cleanHex, MFA_PROMPT_GRACE_MS } from '../../posture/checks.js';
import { recordEndpointState, servicesPromptedBy, trimResponses, upsertResponse } from '../../posture/repo.js';
import { affectedIdentities, markServicesChanged } from '../../policy/service-updates-repo.js';
import type { Statement } from '../../crud/repo.js';

/** One request carries at most this many responses; lists in a response at most MAX_ITEMS entries. */
const MAX_RESPONSES = 100;
const MAX_ITEMS = 256;
const MAX_TEXT = 4096;

type AnyResponse = PostureResponseCreate & {
  type?: string;
  version?: string;
  build?: string | null;
  macAddresses?: string[];
  domain?: string;
  path?: string | null;
  isRunning?: boolean | null;
  hash?: string | null;
  signerFingerprints?: string[] | null;
  woken?: boolean | null;
  unlocked?: boolean | null;
};

function text(field: string, value: unknown): string {
  const s = typeof value === 'string' ? value : '';
  const problem = textProblem(s, MAX_TEXT, field);
  if (problem) throw fieldError(field, problem, s);
  return s;
}

function list(field: string, value: readonly string[] | null | undefined): string[] {
  const items = value ?? [];
  if (items.length > MAX_ITEMS) throw fieldError(field, `${field} should have at most ${MAX_ITEMS} items`, `${items.length} items`);
  return items.map((v, i) => text(`${field}[${i}]`, v));
}

/**
 * `POST /posture-response` and `POST /posture-response-bulk` (reference model-and-policies §7.2): every
 * response is stored in one batch (identity-level OS/MAC/DOMAIN replaced, PROCESS per check id and per
 * path, ENDPOINT_STATE on the API session), and the identity's service list is marked changed (its
 * posture queries may evaluate differently). With a wake or unlock after MFA, the answer lists the
 * services whose MFA timers restart.
 */
export async function submitPostureResponses(deps: Deps, caller: RequestSession, responses: readonly PostureResponseCreate[]): Promise<PostureResponse> {
  if (responses.length > MAX_RESPONSES) throw fieldError('postureResponse', `postureResponse should have at most ${MAX_RESPONSES} items`, `${responses.length} items`);
  const identityId = caller.identity.id;
  const apiSessionId = caller.apiSession.id;
  const now = deps.now();
  const statements: Statement[] = [];
  let woken = false;
  let unlocked = false;
  let processes = false;
  for (const [i, response] of (responses as readonly AnyResponse[]).entries()) {
    const at = responses.length > 1 ? `postureResponse[${i}]` : 'postureResponse';
    const postureCheckId = text(`${at}.id`, response.id);
    const row = (kind: 'OS' | 'MAC' | 'DOMAIN' | 'PROCESS' | 'PATH', key: string, data: unknown) => upsertResponse(deps.db, { identityId, kind, key, postureCheckId, data: JSON.stringify(data), updatedAt: now });
    switch (response.typeId as string) {
      case 'OS':
        statements.push(row('OS', '', { type: text(`${at}.type`, response.type), version: text(`${at}.version`, response.version), build: text(`${at}.build`, response.build ?? '') }));
        break;
      case 'MAC':
        statements.push(row('MAC', '', { addresses: list(`${at}.macAddresses`, response.macAddresses).map(cleanHex) }));
        break;
      case 'DOMAIN':
        statements.push(row('DOMAIN', '', { domain: text(`${at}.domain`, response.domain) }));
        break;
      case 'PROCESS': {
        const data = {
          path: text(`${at}.path`, response.path ?? ''),
          isRunning: response.isRunning === true,
          hash: cleanHex(text(`${at}.hash`, response.hash ?? '')),
          signerFingerprints: list(`${at}.signerFingerprints`, response.signerFingerprints).map(cleanHex),
        };
        statements.push(row('PROCESS', postureCheckId, data));
        if (data.path !== '') statements.push(row('PATH', data.path, data));
        processes = true;
        break;
      }
      case 'ENDPOINT_STATE':
        if (response.woken || response.unlocked) {
          statements.push(recordEndpointState(deps.db, apiSessionId, identityId, { wokenAt: response.woken ? now : null, unlockedAt: response.unlocked ? now : null }, now));
          woken ||= response.woken === true;
          unlocked ||= response.unlocked === true;
        }
        break;
      // MFA state is the API session's own (set by /authenticate/mfa); a response of that type changes nothing.
    }
  }
  if (processes) statements.push(trimResponses(deps.db, identityId, 'PROCESS'), trimResponses(deps.db, identityId, 'PATH'));
  if (statements.length > 0) statements.push(markServicesChanged(deps.db, now, affectedIdentities.one(identityId)));
  const passedMfaAt = caller.apiSession.passedMfaAt;
  const [, prompted] = await Promise.all([
    atomic(deps.db, statements),
    (woken || unlocked) && passedMfaAt !== null ? servicesPromptedBy(deps.db, identityId, { woken, unlocked }, Math.trunc((now - passedMfaAt) / 1000), MFA_PROMPT_GRACE_MS / 1000) : Promise.resolve([]),
  ]);
  const grace = MFA_PROMPT_GRACE_MS / 1000;
  return { services: prompted.map((s) => ({ id: s.id, name: s.name, postureQueryType: 'MFA', timeout: Number(s.timeout), timeoutRemaining: grace })) };
}

