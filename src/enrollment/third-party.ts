import type { ClientCertificate, Deps } from '../deps.js';
import { uniqueViolation } from '../crud/repo.js';
import { ApiError } from '../errors.js';
import type { AuthPolicyRow, IdentityRow } from '../http/session.js';
import { sha256Hex } from '../lib/encoding.js';
import { shortId } from '../lib/ids.js';
import { readJson } from '../lib/json.js';
import { certificatesOfPem, chainToAnchor, parsePresented, type PresentedLeaf } from '../pki/chain.js';
import { x509 } from '../pki/x509.js';
import type { EnrollOutcome } from './enroll.js';
import { extractExternalId, type ExternalIdClaim } from './external-id.js';
import { anyCa, casWhere, consumeEnrollment, findCa, identityByExternalId, insertIdentityWith, type EnrollmentRow } from './repo.js';

type CaRow = NonNullable<Awaited<ReturnType<typeof findCa>>>;

function caCertificate(ca: CaRow): x509.X509Certificate | undefined {
  return certificatesOfPem(ca.certPem)[0];
}

/** Client certificates must allow clientAuth, or say nothing about extended key usage. */
function clientAuthAllowed(cert: x509.X509Certificate): boolean {
  const eku = cert.getExtension(x509.ExtendedKeyUsageExtension);
  return !eku || eku.usages.includes(x509.ExtendedKeyUsage.clientAuth) || eku.usages.includes('2.5.29.37.0');
}

async function verifiedBy(leaf: PresentedLeaf, ca: CaRow, now: Date): Promise<boolean> {
  const anchor = caCertificate(ca);
  return anchor !== undefined && clientAuthAllowed(leaf.cert) && (await chainToAnchor(leaf.cert, leaf.intermediates, [anchor], now)) !== undefined;
}

function pemChain(leaf: PresentedLeaf): string {
  return [leaf.cert, ...leaf.intermediates].map((c) => c.toString('pem')).join('\n');
}

function certInUse(fingerprint: string): ApiError {
  return new ApiError('CERT_IN_USE', { data: { fingerprint } });
}

/** The presented chain (Workers' fingerprint-only path cannot verify a chain: no certificate). */
async function presentedLeaf(cert: ClientCertificate | undefined): Promise<PresentedLeaf | undefined> {
  return cert && cert.chainDer.length > 0 ? parsePresented(cert.chainDer) : undefined;
}

/**
 * OTTCA (reference §5.5): the token plus a TLS client certificate from the enrollment's CA, which must
 * allow OTT-CA enrollment; the certificate becomes the identity's (not network-issued) cert authenticator.
 */
export async function enrollOttCa(deps: Deps, enrollment: EnrollmentRow, cert: ClientCertificate | undefined): Promise<EnrollOutcome> {
  const ca = enrollment.caId ? await findCa(deps.db, enrollment.caId) : undefined;
  if (!ca) throw new ApiError('NOT_FOUND');
  if (!ca.isOttCaEnrollmentEnabled) throw new ApiError('ENROLLMENT_CA_NOT_VALID');
  const now = deps.now();
  const leaf = await presentedLeaf(cert);
  if (!leaf || !(await verifiedBy(leaf, ca, new Date(now)))) throw new ApiError('CERTIFICATE_FAILED_VALIDATION');
  let won: boolean;
  try {
    won = await consumeEnrollment(deps.db, enrollment, now, {
      id: shortId(),
      createdAt: now,
      updatedAt: now,
      tags: '{}',
      identityId: enrollment.identityId!,
      method: 'cert',
      certFingerprint: leaf.fingerprint,
      certPem: pemChain(leaf),
      publicKeyPrint: await sha256Hex(leaf.cert.publicKey.rawData),
      isIssuedByNetwork: false,
    });
  } catch (e) {
    if (uniqueViolation(e)?.includes('authenticators.cert_fingerprint')) throw certInUse(leaf.fingerprint);
    throw e;
  }
  if (!won) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
  return {};
}

function commonName(cert: x509.X509Certificate): string {
  return new x509.Name(cert.subject).toJSON().find((rdn) => rdn.CN)?.CN?.[0] ?? '';
}

/** `identityNameFormat` with every placeholder replaced (reference §5.7). */
export function formatIdentityName(format: string, values: { caName: string; caId: string; commonName: string; requestedName: string; identityId: string }): string {
  return format
    .replaceAll('[caName]', values.caName)
    .replaceAll('[caId]', values.caId)
    .replaceAll('[commonName]', values.commonName)
    .replaceAll('[requestedName]', values.requestedName)
    .replaceAll('[identityId]', values.identityId);
}

/** Attempts at a free name before giving up (each collision appends another counter). */
const NAME_ATTEMPTS = 60;

/**
 * CA auto-enrollment (reference §5.7): no token; the first verified, auto-enrollment-enabled CA that
 * verifies the TLS client certificate creates a new identity named by its format. With an externalId
 * claim the identity gets that externalId and no authenticator; otherwise a cert authenticator.
 * A name collision appends a six-digit counter, cumulatively, until the name's unique index accepts it.
 */
export async function enrollCa(deps: Deps, cert: ClientCertificate | undefined, requestedName: string | undefined): Promise<EnrollOutcome> {
  if (!(await anyCa(deps.db))) throw new ApiError('ENROLLMENT_NO_VALID_CAS');
  const leaf = await presentedLeaf(cert);
  if (!leaf) throw new ApiError('CERT_FAILED_VALIDATION');
  const now = deps.now();
  let ca: CaRow | undefined;
  for (const candidate of await casWhere(deps.db, 'autoEnroll')) {
    if (await verifiedBy(leaf, candidate, new Date(now))) {
      ca = candidate;
      break;
    }
  }
  if (!ca) throw new ApiError('CERT_FAILED_VALIDATION');
  const claim = readJson<ExternalIdClaim | null>(ca.externalIdClaim, null);
  let externalId: string | null = null;
  if (claim) {
    externalId = extractExternalId(claim, leaf.cert) ?? null;
    if (!externalId) throw new ApiError('MISSING_CERT_CLAIM');
  }
  const identityId = shortId();
  let name = formatIdentityName(ca.identityNameFormat || '[caName]-[commonName]', {
    caName: ca.name,
    caId: ca.id,
    commonName: commonName(leaf.cert),
    requestedName: requestedName || identityId,
    identityId,
  });
  const authenticator = externalId
    ? null
    : {
        id: shortId(),
        createdAt: now,
        updatedAt: now,
        tags: '{}',
        identityId,
        method: 'cert' as const,
        certFingerprint: leaf.fingerprint,
        certPem: leaf.cert.toString('pem'),
        publicKeyPrint: await sha256Hex(leaf.cert.publicKey.rawData),
        isIssuedByNetwork: false,
      };
  for (let counter = 1; counter <= NAME_ATTEMPTS; counter++) {
    try {
      await insertIdentityWith(
        deps.db,
        { id: identityId, createdAt: now, updatedAt: now, tags: '{}', name, typeId: 'Default', isAdmin: false, authPolicyId: 'default', externalId, roleAttributes: ca.identityRoles },
        authenticator,
      );
      return {};
    } catch (e) {
      const failed = uniqueViolation(e) ?? [];
      if (failed.includes('identities.name')) {
        name = `${name}${String(counter).padStart(6, '0')}`;
        continue;
      }
      if (failed.includes('authenticators.cert_fingerprint') || failed.includes('identities.external_id')) throw certInUse(leaf.fingerprint);
      throw e;
    }
  }
  throw new ApiError('CERT_IN_USE', { message: 'no free identity name for this certificate' });
}

/**
 * Pool 3 of certificate login (§3.2, §3.5): a leaf chaining to a verified, auth-enabled third-party CA.
 * Returns `{identity, authPolicy}` when the CA's externalId claim names an identity, `{}` when the
 * identity is to be found by the certificate's fingerprint, or undefined when no such CA verifies it.
 */
export async function thirdPartyLogin(deps: Deps, leaf: x509.X509Certificate, intermediates: x509.X509Certificate[], now: Date): Promise<{ identity?: IdentityRow; authPolicy?: AuthPolicyRow | null; hasVerifiedMfa?: boolean } | undefined> {
  const presented: PresentedLeaf = { cert: leaf, intermediates, fingerprint: '' };
  for (const ca of await casWhere(deps.db, 'auth')) {
    if (!(await verifiedBy(presented, ca, now))) continue;
    const claim = readJson<ExternalIdClaim | null>(ca.externalIdClaim, null);
    const externalId = claim ? extractExternalId(claim, leaf) : undefined;
    // No value extracted: the controller falls back to the fingerprint lookup (§7.4).
    if (!externalId) return {};
    const found = await identityByExternalId(deps.db, externalId);
    if (!found) throw new ApiError('INVALID_AUTH');
    return { identity: found.identity, authPolicy: found.authPolicy, hasVerifiedMfa: Boolean(found.hasVerifiedMfa) };
  }
  return undefined;
}
