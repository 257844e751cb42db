/**
 * Posture checks as the evaluator sees them, and the evaluation itself (reference model-and-policies §7.3):
 * pure functions of a check, the posture data the store holds for the identity and its API session, and
 * the time. The store reads are in ./repo.ts, the contract other modules call in ./evaluate.ts.
 */
import type { postureChecks } from '../db/schema/index.js';
import type {
  OperatingSystem,
  OsType,
  PostureCheckFailureDomain,
  PostureCheckFailureMacAddress,
  PostureCheckFailureMfa,
  PostureCheckFailureOperatingSystem,
  PostureCheckFailureProcess,
  PostureCheckFailureProcessActual,
  PostureCheckFailureProcessMulti,
  Process,
  ProcessMulti,
  SdkInfo,
  Semantic,
} from '../generated/management-types.js';
import { readJson } from '../lib/json.js';
import { iso } from '../lib/time.js';
import { compareVersions, parseRange, parseVersion, SemverError, type Version, type VersionRange } from './semver.js';

export type PostureCheckRow = typeof postureChecks.$inferSelect;
export type PostureCheckTypeId = PostureCheckRow['typeId'];

/** -1: no timeout (every type but MFA with a positive timeout). */
export const NO_TIMEOUT = -1;
/** After a reported wake or unlock, an MFA check with promptOnWake/promptOnUnlock keeps passing this long. */
export const MFA_PROMPT_GRACE_MS = 5 * 60_000;
/** Go's zero time, rendered where the specification requires a date-time and there is none. */
export const ZERO_TIME = '0001-01-01T00:00:00.000Z';

/** The type-specific settings of a check, decoded from its row. */
export type CheckSettings =
  | { typeId: 'OS'; operatingSystems: OperatingSystem[] }
  | { typeId: 'MAC'; macAddresses: string[] }
  | { typeId: 'DOMAIN'; domains: string[] }
  | { typeId: 'PROCESS'; process: Process }
  | { typeId: 'PROCESS_MULTI'; semantic: Semantic; processes: ProcessMulti[] }
  | { typeId: 'MFA'; timeoutSeconds: number; promptOnWake: boolean; promptOnUnlock: boolean; ignoreLegacyEndpoints: boolean };

export function checkSettings(row: PostureCheckRow): CheckSettings {
  switch (row.typeId) {
    case 'OS':
      return { typeId: 'OS', operatingSystems: readJson<OperatingSystem[]>(row.operatingSystems, []) };
    case 'MAC':
      return { typeId: 'MAC', macAddresses: readJson<string[]>(row.macAddresses, []) };
    case 'DOMAIN':
      return { typeId: 'DOMAIN', domains: readJson<string[]>(row.domains, []) };
    case 'PROCESS':
      return { typeId: 'PROCESS', process: readJson<Process>(row.process, { osType: 'Windows', path: '' }) };
    case 'PROCESS_MULTI':
      return { typeId: 'PROCESS_MULTI', semantic: row.semantic === 'AnyOf' ? 'AnyOf' : 'AllOf', processes: readJson<ProcessMulti[]>(row.processes, []) };
    case 'MFA':
      return {
        typeId: 'MFA',
        timeoutSeconds: row.timeoutSeconds !== null && row.timeoutSeconds > 0 ? row.timeoutSeconds : NO_TIMEOUT,
        promptOnWake: row.promptOnWake === true,
        promptOnUnlock: row.promptOnUnlock === true,
        ignoreLegacyEndpoints: row.ignoreLegacyEndpoints === true,
      };
  }
}

/** Lower-case hex without separators: how MAC addresses, hashes and fingerprints are compared (§7.1). */
export function cleanHex(text: string): string {
  return text.toLowerCase().replace(/[^a-f0-9]+/g, '');
}

// ---------------------------------------------------------------------------------------------------------
// Posture data

export interface ProcessData {
  postureCheckId: string;
  path: string;
  isRunning: boolean;
  hash: string;
  signerFingerprints: string[];
  updatedAt: number;
}

/** Everything evaluation reads: the identity's latest responses and its API session's state. */
export interface PostureSnapshot {
  os?: { postureCheckId: string; type: string; version: string; build: string; updatedAt: number };
  mac?: { postureCheckId: string; addresses: string[]; updatedAt: number };
  domain?: { postureCheckId: string; domain: string; updatedAt: number };
  /** PROCESS responses by the check id they answered. */
  processes: Map<string, ProcessData>;
  /** The latest PROCESS response per reported path (PROCESS_MULTI reads these). */
  paths: Map<string, ProcessData>;
  session: SessionPosture;
}

export interface SessionPosture {
  /** When this API session passed MFA; null when it has not, or the identity no longer has verified MFA. */
  passedMfaAt: number | null;
  wokenAt: number | null;
  unlockedAt: number | null;
  sdkInfo: SdkInfo | null;
}

// ---------------------------------------------------------------------------------------------------------
// Evaluation

export interface CheckResult {
  isPassing: boolean;
  timeout: number;
  timeoutRemaining: number;
}

const MIN_C_SDK = parseVersion('0.25.0');

/** A client that cannot be prompted for MFA again: no SDK info, a C SDK before 0.25.0, any other SDK (§7.3). */
export function isLegacyClient(sdkInfo: SdkInfo | null): boolean {
  if (!sdkInfo || sdkInfo.type !== 'ziti-sdk-c') return true;
  try {
    return compareVersions(parseVersion(sdkInfo.version ?? ''), MIN_C_SDK) < 0;
  } catch {
    return true;
  }
}

const osRanges = new Map<string, VersionRange | null>();
/** A stored range, parsed once per process; a range that does not parse (stored before validation) is skipped. */
function rangeOf(text: string): VersionRange | null {
  let range = osRanges.get(text);
  if (range === undefined) {
    try {
      range = parseRange(text);
    } catch (e) {
      if (!(e instanceof SemverError)) throw e;
      range = null;
    }
    if (osRanges.size > 10_000) osRanges.clear();
    osRanges.set(text, range);
  }
  return range;
}

function osPasses(operatingSystems: readonly OperatingSystem[], data: PostureSnapshot['os']): boolean {
  if (!data) return false;
  // A type listed twice: the later entry wins.
  const byType = new Map<string, string[]>();
  for (const os of operatingSystems) byType.set(os.type.toLowerCase(), os.versions ?? []);
  const versions = byType.get(data.type.toLowerCase());
  if (versions === undefined) return false;
  if (versions.length === 0) return true;
  let reported: Version;
  try {
    reported = parseVersion(data.version);
  } catch {
    return false;
  }
  return versions.some((text) => rangeOf(text)?.(reported) ?? false);
}

/**
 * A reported process against a configured one. Reported hashes and fingerprints are stored as bare
 * lower-case hex; configured ones are compared the same way, so `AA:BB` in a check matches `aabb`
 * (the controller compares them case-insensitively only, and a configured separator never matches).
 */
function processMatches(data: ProcessData | undefined, hashes: readonly string[] | null | undefined, fingerprints: readonly string[]): boolean {
  if (!data || !data.isRunning) return false;
  if (hashes && hashes.length > 0 && !hashes.some((h) => cleanHex(h) === cleanHex(data.hash))) return false;
  if (fingerprints.length > 0 && !fingerprints.some((f) => data.signerFingerprints.some((s) => cleanHex(s) === cleanHex(f)))) return false;
  return true;
}

/** Passing after a wake (or unlock) unless it came after MFA and more than the grace period ago. */
function passedSince(event: number | null, passedMfaAt: number, now: number): boolean {
  return event === null || event < passedMfaAt || now - MFA_PROMPT_GRACE_MS < event;
}

function mfaParts(s: Extract<CheckSettings, { typeId: 'MFA' }>, session: SessionPosture, now: number) {
  const passed = session.passedMfaAt;
  const timedOut = passed === null || (s.timeoutSeconds !== NO_TIMEOUT && passed + s.timeoutSeconds * 1000 < now);
  const passedOnWake = !s.promptOnWake || (passed !== null && passedSince(session.wokenAt, passed, now));
  const passedOnUnlock = !s.promptOnUnlock || (passed !== null && passedSince(session.unlockedAt, passed, now));
  return { passedMfa: passed !== null, timedOut, passedOnWake, passedOnUnlock };
}

/**
 * Whether the check's result may differ at another moment with the same stored posture: only an MFA
 * check of a session that passed MFA, and only through its timeout or its wake/unlock grace period. Every
 * other result is fixed by the stored data alone. Keep in step with `mfaParts` and `mfaTimeoutRemaining`,
 * the only readers of `now`: a rendered answer is kept for reuse only when this says no (kept service
 * pages, src/resources/services/page-cache.ts).
 */
export function movesWithTime(s: CheckSettings, session: SessionPosture): boolean {
  return s.typeId === 'MFA' && session.passedMfaAt !== null && (s.timeoutSeconds !== NO_TIMEOUT || s.promptOnWake || s.promptOnUnlock);
}

/** Seconds left before an MFA check needs MFA again (§7.3 `timeoutRemaining`). */
function mfaTimeoutRemaining(s: Extract<CheckSettings, { typeId: 'MFA' }>, session: SessionPosture, now: number): number {
  if (s.timeoutSeconds === NO_TIMEOUT) return NO_TIMEOUT;
  const passed = session.passedMfaAt;
  if (passed === null) return 0;
  if (s.ignoreLegacyEndpoints && isLegacyClient(session.sdkInfo)) return NO_TIMEOUT;
  let remaining = s.timeoutSeconds - Math.trunc((now - passed) / 1000);
  if (remaining <= 0) return 0;
  for (const [prompt, event] of [
    [s.promptOnWake, session.wokenAt],
    [s.promptOnUnlock, session.unlockedAt],
  ] as const) {
    if (prompt && event !== null && event > passed) remaining = Math.min(remaining, Math.max(0, Math.trunc((MFA_PROMPT_GRACE_MS - (now - event)) / 1000)));
  }
  return remaining;
}

/** Whether the check passes now, with its timeout figures. */
export function evaluateCheck(s: CheckSettings, checkId: string, data: PostureSnapshot, now: number): CheckResult {
  const plain = (isPassing: boolean): CheckResult => ({ isPassing, timeout: NO_TIMEOUT, timeoutRemaining: NO_TIMEOUT });
  switch (s.typeId) {
    case 'OS':
      return plain(osPasses(s.operatingSystems, data.os));
    case 'MAC': {
      const wanted = new Set(s.macAddresses);
      return plain(!!data.mac && data.mac.addresses.some((a) => wanted.has(a)));
    }
    case 'DOMAIN':
      return plain(!!data.domain && s.domains.some((d) => d.toLowerCase() === data.domain!.domain.toLowerCase()));
    case 'PROCESS': {
      const fingerprint = s.process.signerFingerprint ?? '';
      return plain(processMatches(data.processes.get(checkId), s.process.hashes, fingerprint === '' ? [] : [fingerprint]));
    }
    case 'PROCESS_MULTI': {
      const satisfied = (p: ProcessMulti) => p.path !== '' && processMatches(data.paths.get(p.path), p.hashes, p.signerFingerprints ?? []);
      // AllOf: an entry without a path fails; AnyOf skips it.
      return plain(s.semantic === 'AnyOf' ? s.processes.some(satisfied) : s.processes.every(satisfied));
    }
    case 'MFA': {
      const m = mfaParts(s, data.session, now);
      return { isPassing: m.passedMfa && !m.timedOut && m.passedOnWake && m.passedOnUnlock, timeout: s.timeoutSeconds, timeoutRemaining: mfaTimeoutRemaining(s, data.session, now) };
    }
  }
}

/** For MFA checks: the latest wake/unlock the check prompts on, when later than the check itself (§4.4). */
export function promptedAt(s: CheckSettings, session: SessionPosture): number | null {
  if (s.typeId !== 'MFA') return null;
  let at: number | null = null;
  if (s.promptOnWake && session.wokenAt !== null) at = session.wokenAt;
  if (s.promptOnUnlock && session.unlockedAt !== null && (at === null || session.unlockedAt > at)) at = session.unlockedAt;
  return at;
}

// ---------------------------------------------------------------------------------------------------------
// Failure details (failed service requests, §7.6)

function processActual(data: ProcessData | undefined, withPath: boolean): PostureCheckFailureProcessActual {
  const actual: PostureCheckFailureProcessActual = { hash: data?.hash ?? '', isRunning: data?.isRunning ?? false, signerFingerprints: data?.signerFingerprints ?? [] };
  if (withPath) actual.path = data?.path ?? '';
  return actual;
}

/** A failure of any of the six types (the specification's `postureCheckFailure` sub-types). */
export type AnyPostureCheckFailure =
  | PostureCheckFailureOperatingSystem
  | PostureCheckFailureMacAddress
  | PostureCheckFailureDomain
  | PostureCheckFailureProcess
  | PostureCheckFailureProcessMulti
  | PostureCheckFailureMfa;

/** What was expected and what was reported, for a failing check, in the specification's failure shapes. */
export function failureDetail(row: Pick<PostureCheckRow, 'id' | 'name'>, s: CheckSettings, data: PostureSnapshot, now: number): AnyPostureCheckFailure {
  const base = { postureCheckId: row.id, postureCheckName: row.name, postureCheckType: s.typeId };
  switch (s.typeId) {
    case 'OS':
      return { ...base, actualValue: { type: data.os?.type ?? '', version: data.os?.version ?? '' }, expectedValue: s.operatingSystems } satisfies PostureCheckFailureOperatingSystem;
    case 'MAC':
      return { ...base, actualValue: data.mac?.addresses ?? [], expectedValue: s.macAddresses } satisfies PostureCheckFailureMacAddress;
    case 'DOMAIN':
      return { ...base, actualValue: data.domain?.domain ?? '', expectedValue: s.domains } satisfies PostureCheckFailureDomain;
    case 'PROCESS':
      return { ...base, actualValue: processActual(data.processes.get(row.id), false), expectedValue: s.process } satisfies PostureCheckFailureProcess;
    case 'PROCESS_MULTI': {
      const reported = s.processes.flatMap((p) => (p.path !== '' && data.paths.has(p.path) ? [processActual(data.paths.get(p.path), true)] : []));
      return { ...base, actualValue: reported, expectedValue: s.processes, semantic: s.semantic } satisfies PostureCheckFailureProcessMulti;
    }
    case 'MFA': {
      const m = mfaParts(s, data.session, now);
      const session = data.session;
      return {
        ...base,
        actualValue: { passedMfa: m.passedMfa, passedOnWake: m.passedOnWake, passedOnUnlock: m.passedOnUnlock, timedOut: m.timedOut },
        expectedValue: { passedMfa: true, passedOnWake: s.promptOnWake, passedOnUnlock: s.promptOnUnlock, timedOut: false },
        criteria: {
          passedMfaAt: iso(session.passedMfaAt) ?? ZERO_TIME,
          wokenAt: iso(session.wokenAt) ?? ZERO_TIME,
          unlockedAt: iso(session.unlockedAt) ?? ZERO_TIME,
          timeoutSeconds: s.timeoutSeconds,
          timeoutRemainingSeconds: mfaTimeoutRemaining(s, session, now),
        },
      } satisfies PostureCheckFailureMfa;
    }
  }
}

/** The `{osType, path}` of PROCESS / PROCESS_MULTI queries. */
export function queryProcesses(s: CheckSettings): { process?: { osType: OsType; path: string }; processes?: { osType: OsType; path: string }[] } {
  if (s.typeId === 'PROCESS') return { process: { osType: s.process.osType, path: s.process.path } };
  if (s.typeId === 'PROCESS_MULTI') return { processes: s.processes.map((p) => ({ osType: p.osType, path: p.path })) };
  return {};
}
