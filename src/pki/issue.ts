import { ApiError } from '../errors.js';
import { sha1Hex } from '../lib/encoding.js';
import { randomSerial } from './serial.js';
import { keyPolicyViolation, MAX_PEM_BYTES } from './key-policy.js';
import type { CertAndKey, CertificateProfile, IssuedCertificate } from './types.js';
import { x509 } from './x509.js';

const BEGIN = '-----BEGIN CERTIFICATE REQUEST-----';
const END = '-----END CERTIFICATE REQUEST-----';
const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

function csrError(message: string): ApiError {
  return new ApiError('COULD_NOT_PROCESS_CSR', { code: 'UNHANDLED', message });
}

/**
 * Parses a PEM CSR by the controller's rules: one block, text before it tolerated, nothing but one
 * line ending after it; the CSR's own signature must verify.
 */
export async function parseCsr(pem: string): Promise<x509.Pkcs10CertificateRequest> {
  if (pem.length > MAX_PEM_BYTES) throw csrError(`CSR larger than ${MAX_PEM_BYTES} bytes`);
  const start = pem.indexOf(BEGIN);
  const end = pem.indexOf(END);
  if (start < 0 || end < start) throw csrError('could not decode CSR PEM');
  const rest = pem.slice(end + END.length);
  if (rest !== '' && rest !== '\n' && rest !== '\r\n') throw csrError('unexpected PEM blocks at end of CSR');
  let csr: x509.Pkcs10CertificateRequest;
  try {
    csr = new x509.Pkcs10CertificateRequest(pem.slice(start, end + END.length));
  } catch {
    throw csrError('could not parse CSR');
  }
  let valid = false;
  try {
    valid = await csr.verify();
  } catch {
    valid = false;
  }
  if (!valid) throw csrError('CSR signature is invalid');
  const weak = keyPolicyViolation(csr.publicKey, csr.signatureAlgorithm as unknown as { name: string });
  if (weak) throw csrError(weak);
  return csr;
}

/**
 * The SANs a router asks for (DNS, IP, e-mail, URI), without SPIFFE ids: the controller names identities
 * and API sessions with `spiffe://` URIs, so a router must not obtain a network certificate carrying one.
 */
function csrSans(csr: x509.Pkcs10CertificateRequest): x509.JsonGeneralNames {
  // CSRs carry extensions in an extensionRequest attribute.
  const ext = csr.extensions.find((e): e is x509.SubjectAlternativeNameExtension => e instanceof x509.SubjectAlternativeNameExtension);
  return (ext?.names.toJSON() ?? []).filter((n) => ['dns', 'ip', 'email', 'url'].includes(n.type) && !(n.type === 'url' && /^spiffe:/i.test(n.value)));
}

/** The subject of a router's client certificate: the CSR's, whose common name is the router id (§6.2). */
function routerSubject(csr: x509.Pkcs10CertificateRequest, routerId: string, commonName: 'required' | 'forced'): x509.JsonName {
  const name = csr.subjectName;
  if (commonName === 'required') {
    const cn = name.getField('CN');
    if (cn.length !== 1 || cn[0] !== routerId) throw csrError("the CSR's common name must be the router's id");
    return name.toJSON();
  }
  const rdns = name
    .toJSON()
    .map((rdn) => Object.fromEntries(Object.entries(rdn).filter(([type]) => type !== 'CN')))
    .filter((rdn) => Object.keys(rdn).length > 0);
  return [...rdns, { CN: [routerId] }];
}

/** Issues a certificate for a CSR under one of the controller's profiles (reference §6.2). */
export async function issueFromCsr(signer: CertAndKey, csrPem: string, profile: CertificateProfile, now: Date): Promise<IssuedCertificate> {
  const csr = await parseCsr(csrPem);
  const apiSession = profile.kind === 'apiSession';
  const notBefore = apiSession ? now : new Date(now.getTime() - 60_000);
  const notAfter = apiSession ? new Date(now.getTime() + 12 * 60 * 60 * 1000) : new Date(now.getTime() + YEAR_MS);
  const eku = profile.kind === 'routerServer' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth;
  let sans: x509.JsonGeneralNames = [];
  if (profile.kind === 'identityClientExtended') sans = profile.sans;
  else if (profile.kind === 'apiSession') sans = [{ type: 'url', value: profile.spiffeUri }];
  else if (profile.kind === 'routerClient' || profile.kind === 'routerServer') sans = csrSans(csr);
  const extensions: x509.Extension[] = [
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment | x509.KeyUsageFlags.dataEncipherment, true),
    new x509.ExtendedKeyUsageExtension([eku], false),
    await x509.AuthorityKeyIdentifierExtension.create(await signer.cert.publicKey.export()),
  ];
  if (sans.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(sans, false));
  const subject = profile.kind === 'routerClient' ? routerSubject(csr, profile.routerId, profile.commonName) : csr.subject;
  let cert: x509.X509Certificate;
  try {
    cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(),
      subject,
      issuer: signer.cert.subject,
      notBefore,
      notAfter,
      publicKey: csr.publicKey,
      signingKey: signer.key,
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
      extensions,
    });
  } catch (e) {
    throw csrError(`could not sign CSR: ${(e as Error).message}`);
  }
  const pem = cert.toString('pem');
  return { cert, pem, chainPem: `${pem}\n${signer.pem}\n`, fingerprint: await sha1Hex(cert.rawData) };
}
