import { SignJWT } from 'jose';
import type { Db } from '../db/client.js';
import { sha1Hex, toBase64, wrap64 } from '../lib/encoding.js';
import { deriveStorageKey, decrypt, encrypt } from './secrets.js';
import { issueFromCsr } from './issue.js';
import { insertPkiRowsIfAbsent, readPkiRows, replaceServerRow, type PkiRow } from './repo.js';
import { randomSerial } from './serial.js';
import type { CertAndKey, Pki } from './types.js';
import { x509 } from './x509.js';

const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY = 24 * 60 * 60 * 1000;
const ROOT_NAME = 'CN=Ziti Edge Controller Root CA, O=OpenZiti-compatible controller';
const SIGNER_NAME = 'CN=Ziti Edge Controller Signing CA, O=OpenZiti-compatible controller';
/** Renew the server certificate this long before it expires. */
const RENEW_BEFORE_MS = 30 * DAY;

export interface PkiOptions {
  secret: string;
  /** DNS names and IP addresses the TLS server certificate must cover. */
  hostnames: string[];
  trustDomain?: string;
  now?: Date;
}

function isIp(value: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(value) || value.includes(':');
}

async function newKeys(): Promise<CryptoKeyPair> {
  return (await crypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
}

async function createRoot(now: Date): Promise<{ cert: x509.X509Certificate; keys: CryptoKeyPair }> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: ROOT_NAME,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + 10 * 365 * DAY),
    keys,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert, keys };
}

async function createSigner(root: CertAndKey, now: Date): Promise<{ cert: x509.X509Certificate; keys: CryptoKeyPair }> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: SIGNER_NAME,
    issuer: root.cert.subject,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + 5 * 365 * DAY),
    publicKey: keys.publicKey,
    signingKey: root.key,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(await root.cert.publicKey.export()),
    ],
  });
  return { cert, keys };
}

async function createServer(signer: CertAndKey, hostnames: string[], trustDomain: string, now: Date) {
  const keys = await newKeys();
  const names: x509.JsonGeneralNames = hostnames.map((h) => (isIp(h) ? { type: 'ip', value: h } : { type: 'dns', value: h }));
  names.push({ type: 'url', value: `${trustDomain}/controller/${hostnames[0] ?? 'controller'}` });
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: `CN=${hostnames[0] ?? 'controller'}, O=OpenZiti-compatible controller`,
    issuer: signer.cert.subject,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + 365 * DAY),
    publicKey: keys.publicKey,
    signingKey: signer.key,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
      new x509.SubjectAlternativeNameExtension(names, false),
      await x509.AuthorityKeyIdentifierExtension.create(await signer.cert.publicKey.export()),
    ],
  });
  return { cert, keys };
}

async function exportKey(key: CryptoKey): Promise<Uint8Array> {
  return new Uint8Array((await crypto.subtle.exportKey('pkcs8', key)) as ArrayBuffer);
}

async function importKey(pkcs8: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey('pkcs8', pkcs8 as BufferSource, EC, true, ['sign']);
}

function coversHostnames(cert: x509.X509Certificate, hostnames: string[]): boolean {
  const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
  const values = new Set((san?.names.toJSON() ?? []).map((n) => n.value));
  return hostnames.every((h) => values.has(h));
}

/**
 * Loads the controller's PKI, creating it on first start. Creation inserts all three rows in one
 * batch with ON CONFLICT DO NOTHING and then re-reads them, so concurrent first starts (two Node
 * processes, or many Worker isolates) converge on whichever PKI was written first.
 */
export async function loadOrCreatePki(db: Db, options: PkiOptions): Promise<Pki> {
  const now = options.now ?? new Date();
  const storageKey = await deriveStorageKey(options.secret);
  let rows = await readPkiRows(db);
  if (!rows.root || !rows.signer || !rows.server) {
    const root = await createRoot(now);
    const rootCk: CertAndKey = { cert: root.cert, pem: root.cert.toString('pem'), key: root.keys.privateKey };
    const trustDomain = options.trustDomain ? normaliseTrustDomain(options.trustDomain) : `spiffe://${await sha1Hex(root.cert.rawData)}`;
    const signer = await createSigner(rootCk, now);
    const signerCk: CertAndKey = { cert: signer.cert, pem: signer.cert.toString('pem'), key: signer.keys.privateKey };
    const server = await createServer(signerCk, options.hostnames, trustDomain, now);
    const at = now.getTime();
    const row = async (name: string, cert: x509.X509Certificate, key: CryptoKey) => ({
      name,
      certPem: cert.toString('pem'),
      encryptedKey: await encrypt(storageKey, await exportKey(key)),
      createdAt: at,
    });
    await insertPkiRowsIfAbsent(db, [
      await row('root', root.cert, root.keys.privateKey),
      await row('signer', signer.cert, signer.keys.privateKey),
      await row('server', server.cert, server.keys.privateKey),
    ]);
    rows = await readPkiRows(db);
  }
  const load = async (r: PkiRow | undefined): Promise<CertAndKey> => {
    if (!r) throw new Error('the PKI rows are incomplete');
    const cert = new x509.X509Certificate(r.certPem);
    return { cert, pem: cert.toString('pem'), key: await importKey(await decrypt(storageKey, r.encryptedKey)) };
  };
  const root = await load(rows.root);
  const signer = await load(rows.signer);
  let server = await load(rows.server);
  const trustDomain = options.trustDomain ? normaliseTrustDomain(options.trustDomain) : `spiffe://${await sha1Hex(root.cert.rawData)}`;

  if (!coversHostnames(server.cert, options.hostnames) || server.cert.notAfter.getTime() - now.getTime() < RENEW_BEFORE_MS) {
    // New host names or an expiring certificate: reissue the server certificate, keep the CAs.
    const fresh = await createServer(signer, options.hostnames, trustDomain, now);
    await replaceServerRow(db, { certPem: fresh.cert.toString('pem'), encryptedKey: await encrypt(storageKey, await exportKey(fresh.keys.privateKey)), createdAt: now.getTime() });
    server = { cert: fresh.cert, pem: fresh.cert.toString('pem'), key: fresh.keys.privateKey };
  }
  return buildPki(root, signer, server, trustDomain);
}

function normaliseTrustDomain(value: string): string {
  return value.startsWith('spiffe://') ? value.replace(/\/+$/, '') : `spiffe://${value.replace(/\/+$/, '')}`;
}

async function buildPki(root: CertAndKey, signer: CertAndKey, server: CertAndKey, trustDomain: string): Promise<Pki> {
  const serverFingerprint = await sha1Hex(server.cert.rawData);
  const rootFingerprint = await sha1Hex(root.cert.rawData);
  const serverKeyPem = x509.PemConverter.encode((await crypto.subtle.exportKey('pkcs8', server.key)) as ArrayBuffer, 'PRIVATE KEY');
  const bundle = `\n${root.pem}\n${signer.pem}`;
  const pkcs7 = wrap64(toBase64(new x509.X509Certificates([root.cert, signer.cert]).export('raw')));
  return {
    root,
    signer,
    server,
    serverFingerprint,
    rootFingerprint,
    trustDomain,
    trustBundlePem: () => bundle,
    cacertsPkcs7Base64: () => pkcs7,
    serverChainPem: () => `${server.pem}\n${signer.pem}\n`,
    serverKeyPkcs8Pem: () => serverKeyPem,
    signJwt: (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: serverFingerprint, typ: 'JWT' }).sign(server.key),
    issueCertificate: (csrPem, profile, now) => issueFromCsr(signer, csrPem, profile, now ?? new Date()),
  };
}
