import type { Deps } from '../deps.js';
import { pingStore } from './repo.js';

/**
 * OpenZiti's health-check API (`/health-checks`): `{"data":{"checks":[...],"healthy":bool},"meta":{}}`.
 * The controller runs its checks on a timer; here the one check, store reachability, runs when asked,
 * bounded by CHECK_TIMEOUT_MS. Failure history is per process (per isolate on Workers).
 */
export const STORE_CHECK_ID = 'store.read';
const CHECK_TIMEOUT_MS = 2_000;

interface CheckState {
  consecutiveFailures: number;
  failingSince?: number;
}
const storeState: CheckState = { consecutiveFailures: 0 };

export interface HealthCheck {
  id: string;
  healthy: boolean;
  lastCheckDuration?: string;
  lastCheckTime?: string;
  err?: string;
  consecutiveFailures?: number;
  failingSince?: string;
}

export interface HealthReport {
  healthy: boolean;
  checks: HealthCheck[];
  /** Why the check failed, for the log only: never sent, it may name files or hosts. */
  failure?: string;
}

/** Go's duration rendering (`850µs`, `1.5ms`, `2.1s`), as the controller prints `lastCheckDuration`. */
export function goDuration(ms: number): string {
  if (ms < 1) return `${Math.round(ms * 1000)}µs`;
  if (ms < 1000) return `${Number(ms.toFixed(3))}ms`;
  return `${Number((ms / 1000).toFixed(3))}s`;
}

/** RFC 3339 to the second, as Go's time.RFC3339 renders UTC. */
function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Runs the store check. `deps` is a rejected promise when the controller could not even start. */
export async function checkHealth(deps: Promise<Deps>, short: boolean): Promise<HealthReport> {
  const started = Date.now();
  const t0 = performance.now();
  let failure: string | undefined;
  try {
    await withTimeout(deps.then((d) => pingStore(d.db)), CHECK_TIMEOUT_MS);
  } catch (e) {
    failure = e instanceof Error ? e.message : String(e);
  }
  const ms = performance.now() - t0;
  if (failure) {
    storeState.consecutiveFailures++;
    storeState.failingSince ??= started;
  } else {
    storeState.consecutiveFailures = 0;
    storeState.failingSince = undefined;
  }
  const check: HealthCheck = { id: STORE_CHECK_ID, healthy: !failure };
  if (!short) {
    check.lastCheckDuration = goDuration(ms);
    check.lastCheckTime = rfc3339(started);
    if (failure) {
      check.err = 'the store did not answer';
      check.consecutiveFailures = storeState.consecutiveFailures;
    }
    if (storeState.failingSince !== undefined) check.failingSince = rfc3339(storeState.failingSince);
  }
  return { healthy: !failure, checks: [check], failure };
}
