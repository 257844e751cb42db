import { ApiError } from '../errors.js';

/**
 * Bounds the number of logins in flight on one instance. Password hashing is the most expensive thing
 * the controller does; past the limit a login is refused at once with 429 SERVER_TOO_MANY_REQUESTS, as
 * the controller's adaptive limiter does, instead of queueing without bound. No admin bypass: the limit
 * is per instance and generous, and the identity is not known before the work it guards is done.
 */
export class ConcurrencyLimiter {
  private inFlight = 0;
  constructor(readonly limit: number) {}

  get active(): number {
    return this.inFlight;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.inFlight >= this.limit) throw new ApiError('SERVER_TOO_MANY_REQUESTS');
    this.inFlight++;
    try {
      return await work();
    } finally {
      this.inFlight--;
    }
  }
}

export interface ThrottleRule {
  /** Failures allowed within the window; the next attempt is refused with 429. */
  limit: number;
  windowMs: number;
}

/**
 * Failed-attempt throttle parameters (per instance, in memory; docs/auth.md):
 * - per (client address, username): 10 failures per 5 minutes: slows guessing one account from one place
 *   without letting anybody lock a user out from elsewhere;
 * - per client address: 100 failures per 5 minutes: slows spraying many usernames from one place.
 * A success clears the (address, username) counter. At most `maxKeys` counters are kept.
 */
export const FAILURE_THROTTLE = {
  perAddressAndUsername: { limit: 10, windowMs: 5 * 60_000 },
  perAddress: { limit: 100, windowMs: 5 * 60_000 },
  maxKeys: 10_000,
} as const;

interface Counter {
  count: number;
  windowStart: number;
}

/** Fixed-window counters of failed attempts, keyed by client address and by (address, username). */
export class FailureThrottle {
  private readonly counters = new Map<string, Counter>();
  constructor(
    private readonly rules: { perAddressAndUsername: ThrottleRule; perAddress: ThrottleRule; maxKeys: number } = FAILURE_THROTTLE,
  ) {}

  private keys(address: string, username: string): [string, ThrottleRule][] {
    const keys: [string, ThrottleRule][] = [[`u\u0000${address}\u0000${username}`, this.rules.perAddressAndUsername]];
    // An unknown address is not one source: never lump such callers together.
    if (address) keys.push([`a\u0000${address}`, this.rules.perAddress]);
    return keys;
  }

  private live(key: string, rule: ThrottleRule, now: number): Counter | undefined {
    const c = this.counters.get(key);
    if (c && now - c.windowStart >= rule.windowMs) {
      this.counters.delete(key);
      return undefined;
    }
    return c;
  }

  /** Refuses with 429 when a counter is exhausted; checked before any hashing is spent. */
  check(address: string, username: string, now: number): void {
    for (const [key, rule] of this.keys(address, username)) {
      const c = this.live(key, rule, now);
      if (c && c.count >= rule.limit) throw new ApiError('SERVER_TOO_MANY_REQUESTS');
    }
  }

  failed(address: string, username: string, now: number): void {
    for (const [key, rule] of this.keys(address, username)) {
      const c = this.live(key, rule, now);
      if (c) c.count++;
      else this.counters.set(key, { count: 1, windowStart: now });
    }
    // Maps iterate in insertion order: drop the oldest counters past the bound.
    for (const key of this.counters.keys()) {
      if (this.counters.size <= this.rules.maxKeys) break;
      this.counters.delete(key);
    }
  }

  succeeded(address: string, username: string): void {
    this.counters.delete(this.keys(address, username)[0][0]);
  }
}

export interface AuthGuards {
  limiter: ConcurrencyLimiter;
  throttle: FailureThrottle;
}

const guards = new WeakMap<object, AuthGuards>();

/** One set of guards per set of dependencies (per process on Node, per isolate on Workers). */
export function authGuards(owner: object, concurrencyLimit: number): AuthGuards {
  let g = guards.get(owner);
  if (!g) {
    g = { limiter: new ConcurrencyLimiter(concurrencyLimit), throttle: new FailureThrottle() };
    guards.set(owner, g);
  }
  return g;
}
