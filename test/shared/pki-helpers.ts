import { x509 } from '../../src/pki/x509.js';

/**
 * Client-side PKI for the enrollment suites: real keys and real CSRs, as an OpenZiti SDK makes them.
 * Helpers never assert.
 */
export interface ClientKey {
  keys: CryptoKeyPair;
  csrPem: string;
}

const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;

/** An EC P-256 key and a CSR with the SDK's subject `O=OpenZiti, DC=<iss URL>, CN=<identity id>`. */
export async function newCsr(commonName: string, options: { algorithm?: { name: string; namedCurve?: string; modulusLength?: number; publicExponent?: Uint8Array; hash?: string }; iss?: string } = {}): Promise<ClientKey> {
  const algorithm = options.algorithm ?? EC;
  const keys = (await crypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
  const signingAlgorithm = algorithm.name === 'ECDSA' ? { name: 'ECDSA', hash: 'SHA-256' } : algorithm;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: [{ O: ['OpenZiti'] }, { DC: [options.iss ?? 'https://localhost:1280'] }, { CN: [commonName] }],
    keys,
    signingAlgorithm,
  });
  return { keys, csrPem: csr.toString('pem') };
}

/** The certificates of a PEM text, in order. */
export function pemCertificates(pem: string): x509.X509Certificate[] {
  return (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((b) => new x509.X509Certificate(b));
}

/** The certificates of the `/.well-known/est/cacerts` answer (base64 of a certs-only PKCS#7). */
export function cacertsBundle(base64: string): x509.X509Certificate[] {
  const der = Uint8Array.from(atob(base64.replace(/\s+/g, '')), (c) => c.charCodeAt(0));
  const certs = new x509.X509Certificates();
  certs.import(der);
  return [...certs];
}

export async function sha1Hex(data: ArrayBuffer): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest('SHA-1', data))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** A third-party CA (self-signed root) that can issue client certificates, for ottca, ca and cas tests. */
export interface TestCa {
  cert: x509.X509Certificate;
  pem: string;
  keys: CryptoKeyPair;
  /** A client certificate (leaf) for a fresh key, with optional SANs. */
  issue(subject: string, options?: { sans?: x509.JsonGeneralNames; notAfter?: Date }): Promise<{ cert: x509.X509Certificate; pem: string; keys: CryptoKeyPair }>;
}

export async function newTestCa(name: string): Promise<TestCa> {
  const keys = (await crypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01' + Math.floor(Math.random() * 1e8).toString(16),
    name: `CN=${name}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 365 * 86_400_000),
    keys,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return {
    cert,
    pem: cert.toString('pem'),
    keys,
    async issue(subject, options = {}) {
      const leafKeys = (await crypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
      const extensions: x509.Extension[] = [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])];
      if (options.sans) extensions.push(new x509.SubjectAlternativeNameExtension(options.sans));
      const leaf = await x509.X509CertificateGenerator.create({
        serialNumber: '02' + Math.floor(Math.random() * 1e8).toString(16),
        subject,
        issuer: cert.subject,
        notBefore: new Date(Date.now() - 60_000),
        notAfter: options.notAfter ?? new Date(Date.now() + 30 * 86_400_000),
        publicKey: leafKeys.publicKey,
        signingKey: keys.privateKey,
        signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
        extensions,
      });
      return { cert: leaf, pem: leaf.toString('pem'), keys: leafKeys };
    },
  };
}
