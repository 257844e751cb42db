import { ApiError } from '../http/errors.js';

/**
 * Bounds the number of logins in flight on one instance. Password hashing is the most expensive
 * thing the controller does; past the limit a login is refused with 429 SERVER_TOO_MANY_REQUESTS
 * (the controller's adaptive limiter answers the same way) instead of queueing without bound.
 * Admins get no bypass: the limit is per instance and generous, and an admin is not special here.
 */
export class ConcurrencyLimiter {
  private inFlight = 0;
  constructor(private readonly limit: number) {}

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

const limiters = new WeakMap<object, ConcurrencyLimiter>();

/** One limiter per set of dependencies (per process on Node, per isolate on Workers). */
export function authLimiter(owner: object, limit: number): ConcurrencyLimiter {
  let limiter = limiters.get(owner);
  if (!limiter) {
    limiter = new ConcurrencyLimiter(limit);
    limiters.set(owner, limiter);
  }
  return limiter;
}
