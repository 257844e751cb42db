/**
 * Where a certificate login's time goes, in-process (no TLS): the login's read, its write batch, a bare
 * request through the same app, and the whole login; sequential, bounded counts, WAL on the test store.
 *
 *   npx tsx scripts/measure-cert-login-parts.ts
 */
import { createNodeCertApp } from '../test/helpers/node-cert-app.js';
import { newCsr, pemCertificates, sha1Hex } from '../test/shared/pki-helpers.js';
import { findCertLogin } from '../src/enrollment/repo.js';
import { atomic } from '../src/db/client.js';
import { apiSessions, apiSessionCertificates } from '../src/db/schema/index.js';
const t = await createNodeCertApp();
await t.libsql.execute('PRAGMA journal_mode=WAL'); await t.libsql.execute('PRAGMA synchronous=NORMAL');
const admin = await t.client.login();
const c = await t.client.request('/edge/management/v1/identities', { token: admin, body: { name: 'd', isAdmin: false, type: 'User', enrollment: { ott: true } } });
const id = c.body.data.id;
const tok = (await t.client.get(`/edge/management/v1/identities/${id}`, admin)).body.data.enrollment.ott.token;
const e = await t.client.request(`/edge/client/v1/enroll?method=ott&token=${tok}`, { method: 'POST', raw: (await newCsr(id)).csrPem, headers: { 'content-type': 'text/plain' } });
const chain = pemCertificates(e.body.data.cert);
const fp = await sha1Hex(chain[0].rawData);
const cc = t.withCertificate({ chainDer: chain.map((x) => new Uint8Array(x.rawData)) });
const db = t.deps.db;
let i = 0;
async function bench(name: string, fn: () => Promise<unknown>, n = 2000) {
  for (let k = 0; k < 100; k++) await fn();
  const cpu0 = process.cpuUsage(); const t0 = performance.now();
  for (let k = 0; k < n; k++) await fn();
  const ms = performance.now() - t0; const cpu = process.cpuUsage(cpu0);
  console.log(name.padEnd(24), ((ms / n) * 1000).toFixed(0), 'µs wall', (((cpu.user + cpu.system) / n)).toFixed(0), 'µs cpu');
}
await bench('findCertLogin', () => findCertLogin(db, fp));
await bench('insert session+cert', () => { i++; const now = Date.now(); return atomic(db, [
  db.insert(apiSessions).values({ id: 's' + i, createdAt: now, updatedAt: now, tokenHash: crypto.randomUUID(), identityId: id, authenticatorId: 'x', lastActivityAt: now }),
  db.insert(apiSessionCertificates).values({ id: 'c' + i, createdAt: now, updatedAt: now, apiSessionId: 's' + i, identityId: id, subject: 'CN=x', fingerprint: fp, validFrom: now, validTo: now, certPem: chain[0].toString('pem') }),
]); });
await bench('insert session only', () => { i++; const now = Date.now(); return db.insert(apiSessions).values({ id: 's' + i, createdAt: now, updatedAt: now, tokenHash: crypto.randomUUID(), identityId: id, authenticatorId: 'x', lastActivityAt: now }); });
await bench('GET /version', () => cc.get('/version'));
await bench('cert login', () => cc.request('/authenticate?method=cert', { method: 'POST', body: {} }));
t.close();
