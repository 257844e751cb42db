import type { Deps } from '../../deps.js';
import type { ExternalIdClaim } from '../../enrollment/external-id.js';
import { findEntity, resourceService } from '../../crud/service.js';
import { ApiError, fieldError, messageError } from '../../errors.js';
import { sha1Hex } from '../../lib/encoding.js';
import { shortId } from '../../lib/ids.js';
import { chainToAnchor } from '../../pki/chain.js';
import { MAX_PEM_BYTES } from '../../pki/key-policy.js';
import { x509 } from '../../pki/x509.js';
import { caEntity } from './entity.js';
import { caCascade, markVerified } from './repo.js';
import { renderCa } from './mapper.js';

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/** `certPem` of a CA: one or more CERTIFICATE blocks, all parsing; the first is the CA (reference §7.1). */
function parseCaPem(pem: unknown): x509.X509Certificate {
  const invalid = (reason: string) => fieldError('certPem', reason, typeof pem === 'string' ? pem.slice(0, 200) : pem);
  if (typeof pem !== 'string' || pem.trim() === '') throw invalid('certPem is required');
  if (pem.length > 64 * MAX_PEM_BYTES) throw invalid('certPem is too large');
  const certs: x509.X509Certificate[] = [];
  for (const m of pem.trim().matchAll(PEM_BLOCK)) {
    if (m[1] !== 'CERTIFICATE') throw invalid(`PEM block of type ${m[1]} is not a certificate`);
    try {
      certs.push(new x509.X509Certificate(m[0]));
    } catch {
      throw invalid('a certificate could not be parsed');
    }
  }
  if (certs.length === 0) throw invalid('no certificate found in certPem');
  const ca = certs[0];
  // The controller answers 500 here (reference §7.1 quirk); the intended 400 code is used instead.
  if (ca.getExtension(x509.BasicConstraintsExtension)?.ca !== true) throw messageError('CERTIFICATE_IS_NOT_CA', 'certificate is not a CA');
  return ca;
}

/** SCHEME matches URIs only (§7.1, the controller's odd code); PREFIX/SUFFIX/SCHEME and SPLIT need criteria. */
function checkClaim(claim: ExternalIdClaim | null | undefined): void {
  if (!claim) return;
  if (claim.matcher === 'SCHEME' && claim.location !== 'SAN_URI') throw fieldError('matcher', 'SCHEME matcher is only valid with the SAN_URI location', claim.matcher, 'REFERENCED_ENTITY_NOT_FOUND');
  if (claim.matcher && claim.matcher !== 'ALL' && !claim.matcherCriteria) throw fieldError('matcherCriteria', 'matcherCriteria is required for this matcher', claim.matcherCriteria ?? '');
  if (claim.parser === 'SPLIT' && !claim.parserCriteria) throw fieldError('parserCriteria', 'parserCriteria is required for the SPLIT parser', claim.parserCriteria ?? '');
  if (claim.index !== null && claim.index < 0) throw fieldError('index', 'index must be 0 or more', claim.index);
}

const base = resourceService(caEntity, {
  render: (s) => renderCa(s.row),
  create: {
    async check(_deps, values, body: { certPem: string; externalIdClaim?: ExternalIdClaim | null }) {
      const ca = parseCaPem(body.certPem);
      checkClaim(body.externalIdClaim);
      // isVerified always starts false; only POST /cas/{id}/verify sets it. certPem is stored (and rendered)
      // exactly as sent, trailing newline included, as the controller does; only the parse above trims.
      Object.assign(values, { certPem: body.certPem, fingerprint: await sha1Hex(ca.rawData), verificationToken: shortId(), isVerified: false });
    },
  },
  update: {
    check(_deps, _values, _existing, body: { externalIdClaim?: unknown }) {
      checkClaim(body?.externalIdClaim as ExternalIdClaim | null | undefined);
    },
  },
  remove: {
    cascade: (deps, existing) => caCascade(deps.db, existing.id),
  },
});

export const caService = base;

function pemBody(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes).trim();
}

/**
 * `POST /cas/{id}/verify` (reference §7.2): proof of possession: a certificate whose subject CN is the
 * CA's verification token, signed by the CA's key.
 */
export async function verifyCa(deps: Deps, id: string, body: Uint8Array): Promise<void> {
  const { row } = await findEntity(deps, caEntity, id);
  if (row.isVerified) throw new ApiError('CA_ALREADY_VERIFIED');
  const text = pemBody(body);
  const m = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/.exec(text);
  if (!text || !m || text.length > MAX_PEM_BYTES) throw messageError('COULD_NOT_PARSE_BODY', 'expected a PEM certificate');
  if (m[1] !== 'CERTIFICATE') throw new ApiError('EXPECTED_PEM_CERTIFICATE');
  let cert: x509.X509Certificate;
  try {
    cert = new x509.X509Certificate(m[0]);
  } catch {
    throw new ApiError('COULD_NOT_PARSE_DER_BLOCK');
  }
  const cn = new x509.Name(cert.subject).toJSON().find((rdn) => rdn.CN)?.CN?.[0];
  if (cn !== row.verificationToken) throw new ApiError('INVALID_COMMON_NAME');
  const ca = new x509.X509Certificate(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/.exec(row.certPem)![0]);
  const now = new Date(deps.now());
  const inValidity = cert.notBefore <= now && now <= cert.notAfter;
  if (!inValidity || !(await chainToAnchor(cert, [], [ca], now))) throw new ApiError('CERTIFICATE_FAILED_VALIDATION');
  // Two verifications racing: the conditional update decides, the loser gets the same 409.
  if (!(await markVerified(deps.db, id, deps.now()))) throw new ApiError('CA_ALREADY_VERIFIED');
}

/** `GET /cas/{id}/jwt` (reference §5.9, §7.6): tells a client where the controller is and to use CA auto-enrollment. */
export async function caJwt(deps: Deps, id: string): Promise<string> {
  const { row } = await findEntity(deps, caEntity, id);
  const iss = `https://${deps.config.apiAddress}/`;
  return deps.pki.signJwt({ iss, sub: row.id, aud: ['openziti-enroller'], jti: row.id, em: 'ca', ctrls: null });
}
