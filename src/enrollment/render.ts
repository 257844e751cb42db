import type { Deps } from '../deps.js';
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
