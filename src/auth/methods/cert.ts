import type { Deps } from '../../deps.js';
import { authenticatorCertPem, findCertLogin } from '../../enrollment/repo.js';
import { ApiError } from '../../errors.js';
import type { AuthPolicyRow } from '../../db/schema/rows.js';
import { isDisabled } from '../identity-state.js';
import { sha1Hex, toBase64 } from '../../lib/encoding.js';
import { shortId } from '../../lib/ids.js';
import { certificatesOfPem, chainToAnchor, parsePresented, subjectString } from '../../pki/chain.js';
import type { x509 } from '../../pki/x509.js';
import { insertSessionCertificate } from '../../resources/session-certificates/repo.js';
import { thirdPartyLogin } from '../../enrollment/third-party.js';
import { extensionFlagsOf } from '../../enrollment/extension-flags.js';
import type { AuthAttempt, AuthMethod, PrimaryAuthResult } from './types.js';

/** What a login needs of a presented leaf, kept per process so a returning certificate is not re-verified. */
interface LeafFacts {
  subject: string;
  validFrom: number;
  validTo: number;
  pem: string;
  /** Chained to the root with the client's own intermediates (pool 1 of §3.2). */
  rootOnly: boolean;
  /** Chained to the controller's own CAs (pool 1 or 2). */
  firstParty: boolean;
}

/**
 * First-party verification results by leaf fingerprint and presented chain. The controller's CAs do not
 * change while a process runs, so a result holds until the CA certificates it used expire; third-party
 * results are never cached (CAs can be disabled or deleted at any time).
 */
const CACHE_LIMIT = 10_000;
const verified = new Map<string, LeafFacts & { until: number }>();
const digests = new WeakMap<Uint8Array[], { fingerprint: string; rest: string }>();

function remember(key: string, facts: LeafFacts, until: number): void {
  if (verified.size >= CACHE_LIMIT) verified.delete(verified.keys().next().value as string);
  verified.set(key, { ...facts, until });
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

function pemOf(der: Uint8Array): string {
  return `-----BEGIN CERTIFICATE-----\n${toBase64(der).match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
}

function facts(cert: x509.X509Certificate, der: Uint8Array, rootOnly: boolean, firstParty: boolean): LeafFacts {
  return { subject: subjectString(cert), validFrom: cert.notBefore.getTime(), validTo: cert.notAfter.getTime(), pem: pemOf(der), rootOnly, firstParty };
}

/** Verifies a presented chain against the controller's pools (§3.2); third-party CAs are tried by the caller. */
async function firstPartyFacts(deps: Deps, chainDer: Uint8Array[], now: Date): Promise<{ fingerprint: string; facts?: LeafFacts; leaf?: x509.X509Certificate; intermediates?: x509.X509Certificate[] } | undefined> {
  // The cache is keyed by digests of the presented DER, so a returning certificate is not even parsed;
  // the digests themselves are kept per presented chain (Node hands over one object per connection).
  let digest = digests.get(chainDer);
  if (!digest) {
    digest = { fingerprint: await sha1Hex(chainDer[0]), rest: chainDer.length > 1 ? await sha1Hex(concat(chainDer.slice(1))) : '' };
    digests.set(chainDer, digest);
  }
  const { fingerprint } = digest;
  const key = `${fingerprint}|${digest.rest}`;
  const hit = verified.get(key);
  if (hit && hit.until > now.getTime()) return { fingerprint, facts: hit };
  const presented = await parsePresented(chainDer);
  if (!presented) return undefined;
  const { root, signer } = deps.pki;
  const rootOnly = (await chainToAnchor(presented.cert, presented.intermediates, [root.cert], now)) !== undefined;
  const firstParty = rootOnly || (await chainToAnchor(presented.cert, presented.intermediates, [root.cert, signer.cert], now)) !== undefined;
  if (!firstParty) return { fingerprint: presented.fingerprint, leaf: presented.cert, intermediates: presented.intermediates };
  const f = facts(presented.cert, chainDer[0], rootOnly, true);
  remember(key, f, Math.min(root.cert.notAfter.getTime(), signer.cert.notAfter.getTime()));
  return { fingerprint: presented.fingerprint, facts: f };
}

/**
 * Facts of network-issued leaves read from their authenticator (the fingerprint-only path), by authenticator
 * and fingerprint. They cannot go stale: the stored certificate of an authenticator changes only with its
 * fingerprint (an extension writes both), an authenticator without a stored certificate fails and is not
 * kept, and a deleted one is not found by the lookup before this. Third-party ones are never kept: their CA
 * is checked on every login.
 */
const stored = new Map<string, LeafFacts>();

async function storedLeafFacts(deps: Deps, authenticator: { id: string; isIssuedByNetwork: boolean }, fingerprint: string, now: number): Promise<LeafFacts> {
  const key = `${authenticator.id}|${fingerprint}`;
  const kept = authenticator.isIssuedByNetwork ? stored.get(key) : undefined;
  if (kept) return kept;
  const [leaf, ...chain] = certificatesOfPem((await authenticatorCertPem(deps.db, authenticator.id)) ?? '');
  if (!leaf) throw new ApiError('INVALID_AUTH');
  if (!authenticator.isIssuedByNetwork && !(await thirdPartyLogin(deps, leaf, chain, new Date(now)))) throw new ApiError('INVALID_AUTH');
  const f = facts(leaf, new Uint8Array(leaf.rawData), true, authenticator.isIssuedByNetwork);
  if (authenticator.isIssuedByNetwork) {
    if (stored.size >= CACHE_LIMIT) stored.delete(stored.keys().next().value as string);
    stored.set(key, f);
  }
  return f;
}

/**
 * Certificate authentication (reference auth-and-pki §3): the TLS client certificate, verified against
 * the controller's root, then its whole bundle, then enabled and verified third-party CAs; the identity
 * by one indexed read of the authenticator with the leaf's fingerprint (no password hashing), or by the
 * `externalId` a third-party CA's claim extracts. The leaf becomes the new session's certificate (§3.6).
 *
 * On Workers the platform verifies the certificate against the zone's mTLS CA and hands over only its
 * SHA-1 fingerprint (src/worker.ts): the fingerprint path alone applies there, and a returning network-issued
 * certificate costs the one read (its stored certificate is read and parsed once per isolate).
 */
export const certMethod: AuthMethod = {
  name: 'cert',
  async authenticate({ svc, clientCertificate }: AuthAttempt): Promise<PrimaryAuthResult> {
    const { deps } = svc;
    const presented = clientCertificate();
    if (!presented) throw new ApiError('INVALID_AUTH');
    const now = deps.now();
    let fingerprint: string;
    let leafFacts: LeafFacts | undefined;

    if (presented.chainDer.length > 0) {
      const first = await firstPartyFacts(deps, presented.chainDer, new Date(now));
      if (!first) throw new ApiError('INVALID_AUTH');
      fingerprint = first.fingerprint;
      // A runtime that also vouches for a fingerprint (Workers with a forwarded leaf) must mean this leaf.
      if (presented.fingerprintSha1 && presented.fingerprintSha1 !== fingerprint) throw new ApiError('INVALID_AUTH');
      leafFacts = first.facts;
      if (!leafFacts) {
        // Pool 3: a verified, auth-enabled third-party CA (§3.2, §3.5).
        const third = await thirdPartyLogin(deps, first.leaf!, first.intermediates!, new Date(now));
        if (!third) throw new ApiError('INVALID_AUTH');
        leafFacts = facts(first.leaf!, presented.chainDer[0], false, false);
        if (third.identity) return certResult(deps, third.identity, third.authPolicy ?? null, 'internal', false, false, fingerprint, leafFacts, now, Boolean(third.hasVerifiedMfa));
      }
    } else if (presented.fingerprintSha1) {
      fingerprint = presented.fingerprintSha1;
    } else {
      throw new ApiError('INVALID_AUTH');
    }

    const found = await findCertLogin(deps.db, fingerprint);
    if (!found) throw new ApiError('INVALID_AUTH');
    const { authenticator, identity, authPolicy } = found;
    // Fingerprint-only (Workers): what the session certificate records comes from the stored certificate,
    // and a third-party certificate still needs its CA verified and auth-enabled (§3.5).
    if (!leafFacts) leafFacts = await storedLeafFacts(deps, authenticator, fingerprint, now);
    const improper = authenticator.isIssuedByNetwork && !leafFacts.rootOnly;
    return {
      ...certResult(deps, identity, authPolicy, authenticator.id, authenticator.isIssuedByNetwork, improper, fingerprint, leafFacts, now, Boolean(found.hasVerifiedMfa)),
      certExtension: extensionFlagsOf(authenticator),
    };
  },
};

function certResult(
  deps: Deps,
  identity: PrimaryAuthResult['identity'],
  authPolicy: (PrimaryAuthResult['authPolicy'] & Pick<AuthPolicyRow, 'certAllowed' | 'certAllowExpired'>) | null,
  authenticatorId: string,
  issuedByNetwork: boolean,
  improper: boolean,
  fingerprint: string,
  leaf: LeafFacts,
  now: number,
  hasVerifiedMfa: boolean,
): PrimaryAuthResult {
  if (isDisabled(identity, now) || !authPolicy || !authPolicy.certAllowed) throw new ApiError('INVALID_AUTH');
  if (!authPolicy.certAllowExpired && (now < leaf.validFrom || now > leaf.validTo)) throw new ApiError('INVALID_AUTH');
  return {
    identity,
    authPolicy,
    authenticatorId,
    isCertExtendable: issuedByNetwork,
    improperClientCertChain: improper,
    hasVerifiedMfa,
    statements: [],
    sessionStatements: (apiSessionId) => [
      insertSessionCertificate(deps.db, {
        id: shortId(),
        createdAt: now,
        updatedAt: now,
        tags: '{}',
        apiSessionId,
        identityId: identity.id,
        subject: leaf.subject,
        fingerprint,
        validFrom: leaf.validFrom,
        validTo: leaf.validTo,
        certPem: leaf.pem,
      }),
    ],
  };
}
