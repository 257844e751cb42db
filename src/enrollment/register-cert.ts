import type { Deps } from '../deps.js';
import { ApiError, messageError } from '../errors.js';
import { sha1Hex, sha256Hex } from '../lib/encoding.js';
import { certificatesOfPem, chainToAnchor } from '../pki/chain.js';
import { MAX_PEM_BYTES } from '../pki/key-policy.js';
import { casWhere, findCertLogin } from './repo.js';

/**
 * The columns of an admin-created cert authenticator (`POST /authenticators` method cert, reference §9.5):
 * exactly one certificate, chaining to the controller's own CAs or to a verified third-party CA (the
 * controller answers 500 for the latter failure; 400 CERT_FAILED_VALIDATION here), not already in use.
 */
export async function registeredCertificate(deps: Deps, certPem: unknown) {
  if (typeof certPem !== 'string' || certPem.length > MAX_PEM_BYTES) throw messageError('COULD_NOT_PARSE_PEM_BLOCK', 'certPem must hold exactly one certificate');
  const certs = certificatesOfPem(certPem);
  const blocks = certPem.match(/-----BEGIN /g)?.length ?? 0;
  if (certs.length !== 1 || blocks !== 1) throw messageError('COULD_NOT_PARSE_PEM_BLOCK', 'certPem must hold exactly one certificate');
  const [cert] = certs;
  const now = new Date(deps.now());
  const own = await chainToAnchor(cert, [deps.pki.signer.cert], [deps.pki.root.cert], now);
  let known = own !== undefined;
  if (!known) {
    for (const ca of await casWhere(deps.db, 'auth')) {
      const anchor = certificatesOfPem(ca.certPem)[0];
      if (anchor && (await chainToAnchor(cert, [], [anchor], now))) {
        known = true;
        break;
      }
    }
  }
  if (!known) throw new ApiError('CERT_FAILED_VALIDATION');
  const fingerprint = await sha1Hex(cert.rawData);
  if (await findCertLogin(deps.db, fingerprint)) throw new ApiError('CERT_IN_USE', { data: { fingerprint } });
  return { certFingerprint: fingerprint, certPem: cert.toString('pem'), publicKeyPrint: await sha256Hex(cert.publicKey.rawData), isIssuedByNetwork: own !== undefined };
}
