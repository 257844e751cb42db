import type { x509 } from './x509.js';

export interface CertAndKey {
  cert: x509.X509Certificate;
  pem: string;
  key: CryptoKey;
}

/** Certificate profiles the controller issues (reference: auth-and-pki §6.2). */
export type CertificateProfile =
  | { kind: 'identityClient' }
  | { kind: 'identityClientExtended'; sans: x509.JsonGeneralNames }
  | { kind: 'apiSession'; spiffeUri: string }
  /**
   * A router's client certificate: the CSR's common name must be the router id (`required`: edge routers,
   * and every router extension) or is replaced by it (`forced`: transit-router enrollment).
   */
  | { kind: 'routerClient'; routerId: string; commonName: 'required' | 'forced' }
  | { kind: 'routerServer' };

export interface IssuedCertificate {
  cert: x509.X509Certificate;
  /** The leaf alone. */
  pem: string;
  /** The leaf followed by the issuing intermediates, excluding the root (§6.3). */
  chainPem: string;
  /** Lower-case hex SHA-1 of the DER. */
  fingerprint: string;
}

/** The controller's PKI, loaded once per process or isolate. */
export interface Pki {
  root: CertAndKey;
  /** The intermediate that issues identity and router certificates. */
  signer: CertAndKey;
  /** The TLS server certificate; its key also signs enrollment and network JWTs. */
  server: CertAndKey;
  serverFingerprint: string;
  rootFingerprint: string;
  /** `spiffe://<domain>` (host part used in API-session certificate URIs). */
  trustDomain: string;
  /** Root and signer PEM blocks, each preceded by a newline. */
  trustBundlePem(): string;
  /** Certs-only PKCS#7 of the trust bundle, base64 in 64-character lines. */
  cacertsPkcs7Base64(): string;
  /** Server leaf + signer, for the Node HTTPS server. */
  serverChainPem(): string;
  serverKeyPkcs8Pem(): string;
  /** Signs a JWT with the server certificate key (ES256, kid = SHA-1 of the server certificate). */
  signJwt(claims: Record<string, unknown>): Promise<string>;
  issueCertificate(csrPem: string, profile: CertificateProfile, now?: Date): Promise<IssuedCertificate>;
}
