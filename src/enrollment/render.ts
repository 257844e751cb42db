import type { Deps } from '../deps.js';
import { readJson } from '../lib/json.js';
import { iso } from '../lib/time.js';
import { jtiOf, unseal } from './seal.js';

/**
 * Opens the sealed JWTs of rendered identities' `enrollment` maps in place and fills `token` from the
 * JWT's `jti`. Rendering is synchronous and opening is not, hence this second pass.
 */
export async function openEnrollmentMaps(deps: Deps, items: unknown[]): Promise<void> {
  const work: Promise<void>[] = [];
  for (const item of items) {
    const map = (item as { enrollment?: Record<string, { jwt?: string; token?: string }> }).enrollment;
    if (!map) continue;
    for (const entry of Object.values(map)) {
      if (!entry?.jwt) continue;
      work.push(
        unseal(deps.config.controllerSecret, entry.jwt).then((jwt) => {
          entry.jwt = jwt;
          entry.token = jtiOf(jwt);
        }),
      );
    }
  }
  await Promise.all(work);
}

/** The enrollment fields of a router detail (edgeRouterDetail, routerDetail). */
export interface RouterEnrollmentFields {
  enrollmentToken: string | null;
  enrollmentJwt: string | null;
  enrollmentCreatedAt: string | null;
  enrollmentExpiresAt: string | null;
}

/**
 * A router's pending enrollment (the summary sub-query of src/enrollment/router-repo.ts) as detail fields,
 * all null once the router has enrolled. The JWT is still sealed: openRouterEnrollments opens it.
 */
export function routerEnrollmentFields(summary: string | null | undefined): RouterEnrollmentFields {
  const e = readJson<{ jwt?: string; createdAt?: number; expiresAt?: number } | null>(summary ?? null, null);
  return { enrollmentToken: null, enrollmentJwt: e?.jwt ?? null, enrollmentCreatedAt: iso(e?.createdAt), enrollmentExpiresAt: iso(e?.expiresAt) };
}

/** Opens the sealed enrollment JWTs of rendered routers in place and fills `enrollmentToken` from the JWT's `jti`. */
export async function openRouterEnrollments(deps: Deps, items: { enrollmentJwt?: string | null; enrollmentToken?: string | null }[]): Promise<void> {
  await Promise.all(
    items.map(async (item) => {
      if (!item.enrollmentJwt) return;
      const jwt = await unseal(deps.config.controllerSecret, item.enrollmentJwt);
      item.enrollmentJwt = jwt;
      item.enrollmentToken = jtiOf(jwt);
    }),
  );
}
