import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { importX509, jwtVerify } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { openNodeStore } from '../../src/node.js';
import { loadOrCreatePki } from '../../src/pki/bootstrap.js';
import { x509 } from '../../src/pki/x509.js';
import { ApiError } from '../../src/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'ziti-pki-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function store(name: string) {
  const client = createClient({ url: `file:${join(dir, name)}` });
  return { client, db: await openNodeStore(client) };
}

async function csr(subject: string, sans?: x509.JsonGeneralNames) {
  const keys = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const req = await x509.Pkcs10CertificateRequestGenerator.create({
    name: subject,
    keys,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: sans ? [new x509.SubjectAlternativeNameExtension(sans)] : [],
  });
  return req.toString('pem');
}

const opts = { secret: 'pki-test-secret-0123456789', hostnames: ['localhost', '127.0.0.1'] };

describe('the PKI', () => {
  it('converges on one PKI when two instances bootstrap the same store at once', async () => {
    const a = await store('shared.db');
    const b = await store('shared.db');
    const [p1, p2] = await Promise.all([loadOrCreatePki(a.db, opts), loadOrCreatePki(b.db, opts)]);
    expect(p1.rootFingerprint).toBe(p2.rootFingerprint);
    expect(p1.serverFingerprint).toBe(p2.serverFingerprint);
    const again = await loadOrCreatePki(a.db, opts);
    expect(again.rootFingerprint).toBe(p1.rootFingerprint);
    a.client.close();
    b.client.close();
  });

  it('refuses a wrong CONTROLLER_SECRET with a clear error', async () => {
    const s = await store('secret.db');
    await loadOrCreatePki(s.db, opts);
    await expect(loadOrCreatePki(s.db, { ...opts, secret: 'another-secret-0123456789' })).rejects.toThrow(/CONTROLLER_SECRET/);
    s.client.close();
  });

  it('reissues the server certificate for new host names but keeps the CA', async () => {
    const s = await store('hosts.db');
    const first = await loadOrCreatePki(s.db, opts);
    const second = await loadOrCreatePki(s.db, { ...opts, hostnames: [...opts.hostnames, 'ctrl.example.com'] });
    expect(second.rootFingerprint).toBe(first.rootFingerprint);
    expect(second.serverFingerprint).not.toBe(first.serverFingerprint);
    s.client.close();
  });

  it('builds a chain openssl verifies and signs JWTs with the server certificate key', async () => {
    const s = await store('chain.db');
    const pki = await loadOrCreatePki(s.db, opts);
    const files = { root: join(dir, 'root.pem'), signer: join(dir, 'signer.pem'), server: join(dir, 'server.pem') };
    writeFileSync(files.root, pki.root.pem);
    writeFileSync(files.signer, pki.signer.pem);
    writeFileSync(files.server, pki.server.pem);
    const out = execFileSync('openssl', ['verify', '-CAfile', files.root, '-untrusted', files.signer, files.server], { encoding: 'utf8' });
    expect(out).toContain('OK');
    const jwt = await pki.signJwt({ iss: 'https://localhost:1280', sub: 'x' });
    const { payload, protectedHeader } = await jwtVerify(jwt, await importX509(pki.server.pem, 'ES256'));
    expect(payload.sub).toBe('x');
    expect(protectedHeader.kid).toBe(pki.serverFingerprint);
    s.client.close();
  });

  it('issues certificates from real CSRs under each profile', async () => {
    const s = await store('issue.db');
    const pki = await loadOrCreatePki(s.db, opts);
    const client = await pki.issueCertificate(await csr('CN=abc, O=NetFoundry, C=US', [{ type: 'dns', value: 'ignored.example' }]), { kind: 'identityClient' });
    expect(client.cert.subject).toBe('CN=abc, O=NetFoundry, C=US');
    expect(client.cert.getExtension(x509.ExtendedKeyUsageExtension)?.usages).toEqual([x509.ExtendedKeyUsage.clientAuth]);
    expect(client.cert.getExtension(x509.SubjectAlternativeNameExtension)).toBeNull();
    expect(client.fingerprint).toMatch(/^[0-9a-f]{40}$/);
    expect(await client.cert.verify({ publicKey: pki.signer.cert.publicKey })).toBe(true);
    const days = (client.cert.notAfter.getTime() - client.cert.notBefore.getTime()) / 86_400_000;
    expect(days).toBeGreaterThan(364);
    expect(client.chainPem).toContain(pki.signer.pem.trim());
    expect(client.chainPem).not.toContain(pki.root.pem.trim());

    const server = await pki.issueCertificate(await csr('CN=router1', [{ type: 'dns', value: 'er1.example' }, { type: 'ip', value: '10.0.0.1' }]), { kind: 'routerServer' });
    expect(server.cert.getExtension(x509.ExtendedKeyUsageExtension)?.usages).toEqual([x509.ExtendedKeyUsage.serverAuth]);
    expect(server.cert.getExtension(x509.SubjectAlternativeNameExtension)?.names.toJSON().map((n) => n.value)).toEqual(['er1.example', '10.0.0.1']);

    const session = await pki.issueCertificate(await csr('CN=s'), { kind: 'apiSession', spiffeUri: `${pki.trustDomain}/identity/i/apiSession/a/apiSessionCertificate/c` });
    expect((session.cert.notAfter.getTime() - session.cert.notBefore.getTime()) / 3_600_000).toBe(12);
    s.client.close();
  });

  it('refuses tampered and malformed CSRs with COULD_NOT_PROCESS_CSR', async () => {
    const s = await store('bad.db');
    const pki = await loadOrCreatePki(s.db, opts);
    const good = await csr('CN=abc');
    const lines = good.split('\n');
    const mid = Math.floor(lines.length / 2);
    lines[mid] = lines[mid].slice(0, 10) + (lines[mid][10] === 'A' ? 'B' : 'A') + lines[mid].slice(11);
    for (const bad of [lines.join('\n'), '', 'garbage', good + '\n\n', good + good]) {
      const err = await pki.issueCertificate(bad, { kind: 'identityClient' }).catch((e) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe('COULD_NOT_PROCESS_CSR');
    }
    s.client.close();
  });
});
