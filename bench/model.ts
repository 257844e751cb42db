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

/**
 * Configs, as a tunneler network has them: every service has its own `intercept.v1` config (what clients
 * intercept) and every other one (even index) a `host.v1` config too (how a tunneler hosts it; the rest
 * are hosted by SDK applications). Both types are built-ins a fresh store has (reference
 * model-and-policies §5.4); the data is valid for their schemas. OpenZiti's own many-services model
 * seeds no configs; its db-creation model attaches one intercept.v1 and one host.v1 config to every service.
 */
export const INTERCEPT_V1 = { id: 'g7cIWbcGg', name: 'intercept.v1' } as const;
export const HOST_V1 = { id: 'NH5p4FpGR', name: 'host.v1' } as const;

const SERVICE_PORTS = [443, 80, 22, 5432, 3389] as const;
const servicePort = (i: number) => SERVICE_PORTS[i % SERVICE_PORTS.length];

export const hasHostConfig = (serviceIndex: number) => serviceIndex % 2 === 0;
/** How many services have a host.v1 config (the even indexes). */
export const hostConfigCount = (services: number) => Math.ceil(services / 2);

export const interceptConfigName = (i: number) => `${serviceName(i)}.intercept.v1`;
export const hostConfigName = (i: number) => `${serviceName(i)}.host.v1`;

export function interceptConfigData(i: number): Record<string, unknown> {
  return { protocols: i % 5 === 2 ? ['tcp', 'udp'] : ['tcp'], addresses: [`${serviceName(i)}.ziti`], portRanges: [{ low: servicePort(i), high: servicePort(i) }] };
}

export function hostConfigData(i: number): Record<string, unknown> {
  return { protocol: 'tcp', address: `${serviceName(i)}.internal`, port: servicePort(i) };
}

/**
 * A handful of posture checks, one of each common type, selected by service policies through their
 * `postureCheckRoles` (management API bodies).
 */
export const POSTURE_CHECKS: readonly Record<string, unknown>[] = [
  { typeId: 'MFA', name: 'bench-pc-mfa', roleAttributes: ['posture-mfa'], timeoutSeconds: 14_400, promptOnWake: true, promptOnUnlock: true, ignoreLegacyEndpoints: false },
  {
    typeId: 'OS',
    name: 'bench-pc-os',
    roleAttributes: ['posture-os'],
    operatingSystems: [
      { type: 'Windows', versions: ['>=10.0.19041'] },
      { type: 'macOS', versions: ['>=13.0.0'] },
      { type: 'Linux', versions: [] },
    ],
  },
  { typeId: 'DOMAIN', name: 'bench-pc-domain', roleAttributes: ['posture-domain'], domains: ['corp.bench.example'] },
  {
    typeId: 'PROCESS',
    name: 'bench-pc-process',
    roleAttributes: ['posture-process'],
    process: { osType: 'Windows', path: 'C:\\Program Files\\Bench\\endpoint-agent.exe', hashes: ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'], signerFingerprint: '' },
  },
];

/**
 * The posture checks service policy j requires: every other Dial policy (j % 4 === 0, a quarter of all
 * service policies) requires MFA, the OS, the domain, or the OS and a running process, in turn; Bind
 * policies and the other Dial policies require none.
 */
export function postureCheckRoles(j: number): string[] {
  if (j % 4 !== 0) return [];
  const sets = [['#posture-mfa'], ['#posture-os'], ['#posture-domain'], ['#posture-os', '#posture-process']];
  return sets[(j / 4) % sets.length];
}
