/**
 * The benchmark model: OpenZiti's perf-test sizes and the deterministic shape of the seeded data
 * (names, role attributes, which identities the scenarios act as).
 */

export type SizeName = 'small' | 'medium' | 'many-services';
export const SIZE_NAMES: readonly SizeName[] = ['small', 'medium', 'many-services'];

export interface ModelSize {
  services: number;
  identities: number;
  edgeRouters: number;
  /** Of each kind: service policies, edge router policies, service edge router policies. */
  policiesPerKind: number;
}

/**
 * OpenZiti's model sizes. `many-services` is the big one (10,000 services, 16,000 identities);
 * routers and policies of the two smaller sizes are not fixed by OpenZiti and are kept small.
 */
export const SIZES: Record<SizeName, ModelSize> = {
  small: { services: 20, identities: 100, edgeRouters: 5, policiesPerKind: 10 },
  medium: { services: 100, identities: 5_000, edgeRouters: 10, policiesPerKind: 20 },
  'many-services': { services: 10_000, identities: 16_000, edgeRouters: 100, policiesPerKind: 100 },
};

/** Role attributes `role-2` ... `role-10`: entity i has `role-k` when i % k === 0, so `role-k` is on 1/k of them. */
export const ROLE_DIVISORS = [2, 3, 4, 5, 6, 7, 8, 9, 10] as const;

export function roleAttributes(index: number): string[] {
  // Sorted and unique, as the store keeps them.
  return ROLE_DIVISORS.filter((k) => index % k === 0)
    .map((k) => `role-${k}`)
    .sort();
}

const pad = (i: number) => String(i).padStart(6, '0');
export const identityName = (i: number) => `identity-${pad(i)}`;
export const serviceName = (i: number) => `service-${pad(i)}`;
export const routerName = (i: number) => `router-${pad(i)}`;

/** The identity with every role attribute: it sees every policy (index 0 is divisible by every k). */
export const WORST_IDENTITY_INDEX = 0;

/** The first identity carrying the typical number of role attributes (the rounded mean, 2). */
export function typicalIdentityIndex(identities: number): number {
  const mean = ROLE_DIVISORS.reduce((sum, k) => sum + 1 / k, 0);
  const want = Math.round(mean);
  for (let i = 1; i < identities; i++) if (roleAttributes(i).length === want) return i;
  return Math.min(1, identities - 1);
}

/** How many plain identities also get a password authenticator to spread logins over. */
export const LOGIN_USERS = 8;

/** How many plain identities (not the password users) enroll a client certificate to spread certificate logins over. */
export const CERT_USERS = 8;

/** Policy j selects entities by role attribute; the pairs rotate so that policies differ. */
export function policyRoles(j: number): { a: string; b: string } {
  const n = ROLE_DIVISORS.length;
  return { a: `#role-${ROLE_DIVISORS[j % n]}`, b: `#role-${ROLE_DIVISORS[(j + Math.floor(j / n) + 3) % n]}` };
}
