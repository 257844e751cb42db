/**
 * Kept pages of the client's `GET /services` (docs/adr/0015-kept-service-pages.md). Every SDK and tunneler
 * asks for its service list again after each login, session refresh and service-updates change; most of
 * those answers are the same bytes as the last one. A page is kept, serialised, per store handle (process
 * or isolate), and answered again while what it was made from is unchanged, which the request's own session
 * check tells at no extra read:
 * - `identities.services_changed_at`, the stamp every write that can change the identity's list moves (the
 *   same one `service-updates` answers, src/policy/service-updates-repo.ts);
 * - the posture the identity and its API session reported (responses, MFA and endpoint state, SDK info: the
 *   services rider's text, compared whole), which moves no stamp; the checks themselves do move it;
 * - the config types, limit and offset the page was asked with, and whether it was rendered for an API
 *   session (the client's list) or for the identity alone (the management `/identities/{id}/services`).
 * Nothing is ever trusted from the kept page itself: a page whose checks depend on the clock (an MFA
 * timeout or grace period) is not kept, nor one made within `SETTLE_MS` of its stamp, since a write in
 * the same millisecond, or from a clock a little behind, would leave the stamp where it was.
 */
import type { ListResult } from '../../crud/service.js';
import type { Db } from '../../db/client.js';
import type { ServiceDetail } from '../../generated/management-types.js';
import { serialisedNow } from '../../lib/json.js';

/** What decides whether a kept page still holds, besides its key. */
export interface PageSource {
  /** `identities.services_changed_at` as the session check read it. */
  servicesChangedAt: number | null;
  /** The services rider's reported posture, as read (null: no posture check exists). */
  postureState: string | null;
}

/** A page is kept only once its stamp is this much older than the moment it is made. */
export const SETTLE_MS = 2_000;
/** A page larger than this share of the budget is not kept: it would push out many typical pages. */
const MAX_PAGE_SHARE = 0.5;

interface Kept extends PageSource {
  page: ListResult<ServiceDetail>;
  bytes: number;
}

export class KeptServicePages {
  /** By page key; in order of last answer (a `Map` keeps insertion order). */
  private readonly pages = new Map<string, Kept>();
  private bytes = 0;

  /** `budget`: the UTF-8 size of all kept pages (`ZITI_SERVICE_PAGE_CACHE_MB`); the least recently answered go first. */
  constructor(private readonly budget: number) {}

  /** The key of one identity's page as asked: one entry per key, replaced when its source moves. */
  static key(identityId: string, types: readonly string[], configTypes: readonly string[], limit: number | null, offset: number, forSession: boolean): string {
    return JSON.stringify([identityId, types, configTypes, limit ?? null, offset, forSession]);
  }

  /** The kept page for the key if it was made from this very source. */
  get(key: string, source: PageSource): ListResult<ServiceDetail> | undefined {
    const kept = this.pages.get(key);
    if (kept === undefined || kept.servicesChangedAt !== source.servicesChangedAt || kept.postureState !== source.postureState) return undefined;
    this.pages.delete(key);
    this.pages.set(key, kept);
    return kept.page;
  }

  /**
   * Keeps a page just made from `source` at `now`, unless it is too young to trust or too large. Its data
   * is serialised once here, and copied into every later answer (`serialisedNow`).
   */
  put(key: string, source: PageSource, page: ListResult<ServiceDetail>, now: number): void {
    this.drop(key);
    if (source.servicesChangedAt !== null && source.servicesChangedAt > now - SETTLE_MS) return;
    const { bytes } = serialisedNow(page.data);
    if (bytes > this.budget * MAX_PAGE_SHARE) return;
    this.pages.set(key, { servicesChangedAt: source.servicesChangedAt, postureState: source.postureState, page, bytes });
    this.bytes += bytes;
    for (const oldest of this.pages.keys()) {
      if (this.bytes <= this.budget) break;
      this.drop(oldest);
    }
  }

  private drop(key: string): void {
    const kept = this.pages.get(key);
    if (kept === undefined) return;
    this.pages.delete(key);
    this.bytes -= kept.bytes;
  }
}

const byStore = new WeakMap<Db, KeptServicePages>();

/** The kept pages of this store handle (one per process on Node, per isolate on Workers); none with a budget of 0. */
export function keptServicePages(db: Db, budget: number): KeptServicePages | undefined {
  if (budget <= 0) return undefined;
  let kept = byStore.get(db);
  if (!kept) byStore.set(db, (kept = new KeptServicePages(budget)));
  return kept;
}
