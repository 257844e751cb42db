import type { ClientCertificate, Deps } from '../deps.js';
import { ApiError, fieldError, messageError, notFound } from '../errors.js';
import type { RequestSession } from '../http/session.js';
import { sha1Hex, sha256Hex } from '../lib/encoding.js';
import { shortId } from '../lib/ids.js';
import { certificatesOfPem, chainToAnchor, parsePresented, subjectString } from '../pki/chain.js';
import { x509 } from '../pki/x509.js';
import { deleteByFingerprint, insertSessionCertificate } from '../resources/session-certificates/repo.js';
import { applyExtension, findAuthenticator, setPendingExtension, type AuthenticatorRow } from './repo.js';

const cannotUpdate = () => new ApiError('CAN_NOT_UPDATE_AUTHENTICATOR');

/** The caller's cert authenticator, by the checks both extension steps share (reference §6.5). */
async function ownCertAuthenticator(deps: Deps, caller: RequestSession, id: string): Promise<AuthenticatorRow> {
  const a = await findAuthenticator(deps.db, id);
  if (!a) throw notFound('authenticator', id);
  if (a.method !== 'cert') throw cannotUpdate();
  if (a.identityId !== caller.identity.id) throw new ApiError('UNAUTHORIZED');
  if (!a.isIssuedByNetwork || !a.certPem || !a.certFingerprint) throw cannotUpdate();
  return a;
}

/**
 * `POST /current-identity/authenticators/{id}/extend` (§6.5 step 1): over a connection presenting the
 * authenticator's current certificate, a new certificate for the CSR becomes the pending one. The old
 * certificate keeps working until extend-verify.
 */
export async function extendAuthenticator(deps: Deps, caller: RequestSession, id: string, presented: ClientCertificate | undefined, csrPem: string | undefined) {
  if (!presented) throw new ApiError('UNAUTHORIZED');
  if (!csrPem) throw fieldError('certCsr', 'clientCertCsr is required');
  const a = await ownCertAuthenticator(deps, caller, id);
  const now = new Date(deps.now());
  let fingerprint = presented.fingerprintSha1;
  if (presented.chainDer.length > 0) {
    const leaf = await parsePresented(presented.chainDer);
    if (!leaf) throw new ApiError('UNAUTHORIZED');
    fingerprint = leaf.fingerprint;
    // It must chain to the controller's root, with the signer and the client's certificates as intermediates.
    if (!(await chainToAnchor(leaf.cert, [deps.pki.signer.cert, ...leaf.intermediates], [deps.pki.root.cert], now))) throw new ApiError('UNAUTHORIZED');
  }
  // On Workers the platform verified the certificate; its fingerprint must be the authenticator's.
  if (fingerprint !== a.certFingerprint) throw new ApiError('UNAUTHORIZED');
  const current = certificatesOfPem(a.certPem!)[0];
  const sans = current?.getExtension(x509.SubjectAlternativeNameExtension)?.names.toJSON().filter((n) => ['dns', 'ip', 'email', 'url'].includes(n.type)) ?? [];
  const issued = await deps.pki.issueCertificate(csrPem, { kind: 'identityClientExtended', sans }, now);
  await setPendingExtension(deps.db, a.id, issued.pem, issued.fingerprint, now.getTime());
  return { ca: deps.pki.trustBundlePem(), clientCert: issued.chainPem };
}

/**
 * `POST /current-identity/authenticators/{id}/extend-verify` (§6.5 step 2): the client proves it received
 * the pending certificate; it replaces the old one, the extension flags clear, and the caller's session
 * certificates move from the old fingerprint to the new certificate.
 */
export async function verifyExtension(deps: Deps, caller: RequestSession, id: string, clientCert: string) {
  const a = await ownCertAuthenticator(deps, caller, id);
  if (!a.unverifiedFingerprint || !a.unverifiedCertPem) throw cannotUpdate();
  const offered = certificatesOfPem(clientCert ?? '');
  let match = false;
  for (const c of offered) if ((await sha1Hex(c.rawData)) === a.unverifiedFingerprint) match = true;
  if (!match) throw new ApiError('INVALID_CLIENT_CERT');
  const cert = certificatesOfPem(a.unverifiedCertPem)[0];
  if (!cert) throw messageError('INVALID_CLIENT_CERT', 'the pending certificate could not be read');
  const now = deps.now();
  const publicKeyPrint = await sha256Hex(cert.publicKey.rawData);
  const applied = await applyExtension(
    deps.db,
    a.id,
    a.unverifiedFingerprint,
    { certPem: a.unverifiedCertPem, publicKeyPrint, lastExtendRolledKeys: a.publicKeyPrint !== publicKeyPrint, now },
    [
      deleteByFingerprint(deps.db, a.certFingerprint!),
      insertSessionCertificate(deps.db, {
        id: shortId(),
        createdAt: now,
        updatedAt: now,
        tags: '{}',
        apiSessionId: caller.apiSession.id,
        identityId: caller.identity.id,
        subject: subjectString(cert),
        fingerprint: a.unverifiedFingerprint,
        validFrom: cert.notBefore.getTime(),
        validTo: cert.notAfter.getTime(),
        certPem: a.unverifiedCertPem,
      }),
    ],
  );
  if (!applied) throw cannotUpdate();
}
