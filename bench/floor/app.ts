/**
 * The floor: a bare Hono app doing the least a request to this controller can do, against the same
 * store as the controller, on the same runtime, measured in the same run.
 * - `GET /__floor/read/:id`: one indexed SQLite read (an identity by primary key); with `?bytes=N`, the
 *   same read answered with `N` bytes (its row padded with spaces, precomputed per size): the floor of an
 *   answer of that size (`--sized-floor`); with `?work=N`, the same read after N µs of busy CPU: what a
 *   controller's own work of that size costs under load (`npm run bench:work-floor`);
 * - `POST /__floor/login`: one indexed read (an authenticator by username) and one password
 *   verification with the controller's own hash function, the floor of a password login;
 * - `POST /__floor/cert-login`: the floor of a certificate login. The presented client certificate's
 *   SHA-1 fingerprint as the runtime has it (Node: the TLS socket's peer certificate, verified by
 *   OpenSSL against the controller's root CA in the handshake and hashed once per connection; workerd:
 *   the platform's `request.cf.tlsClientAuth`), one indexed read (the authenticator by fingerprint),
 *   a new session token with the controller's own `newSessionToken` (random UUID, SHA-256 kept), and
 *   one insert of the API-session row: a login must write its session. It is sent the scenario's body
 *   (the SDK's sdkInfo/envInfo) and reads it without parsing it (workerd does not reuse a connection
 *   whose request body was left unread).
 * - `POST /__floor/cert-login-rows`: the same, writing in one transaction the three rows a faithful
 *   certificate login writes (the session, its certificate, its SDK info): the floor of the store's
 *   part of a login (`--login-rows-floor`).
 * - `GET /__floor/session`: the read every authenticated request makes, answered as it comes: the API
 *   session of the request's `zt-session` (its SHA-256 with the controller's own `hashSessionToken`) with
 *   its identity and auth policy, the columns the controller's session check reads
 *   (src/auth/session-repo.ts), packed into one value as it packs them (`--session-floor`).
 * Every scenario is reported as a ratio to one of them.
 */
import { Hono, type Context } from 'hono';
import { verifyPassword } from '../../src/auth/password.js';
import { hashSessionToken, newSessionToken } from '../../src/auth/session-token.js';
import { cuid } from '../../src/lib/ids.js';

export type Query = (sql: string, args: (string | number)[]) => Promise<Record<string, unknown>[]>;
/** Runs one write statement. */
export type Run = (sql: string, args: (string | number)[]) => Promise<void>;
/** Runs write statements in one transaction (Node) or one batch (D1): all of them or none. */
export type RunAll = (statements: { sql: string; args: (string | number | null)[] }[]) => Promise<void>;

/** What the certificate floor needs of its runtime. */
export interface CertFloor {
  run: Run;
  runAll: RunAll;
  /** The verified client certificate's SHA-1 fingerprint (lowercase hex), as the runtime hands it over. */
  fingerprint(c: Context): string | undefined;
}

const INSERT_SESSION =
  'INSERT INTO api_sessions (id, created_at, updated_at, tags, is_system, token_hash, identity_id, authenticator_id, ip_address, config_types, last_activity_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
/** The login's other two rows (src/auth/methods/cert.ts, src/posture/repo.ts `recordLoginSdkInfo`). */
const INSERT_SESSION_CERTIFICATE =
  'INSERT INTO api_session_certificates (id, created_at, updated_at, tags, is_system, api_session_id, identity_id, subject, fingerprint, valid_from, valid_to, cert_pem) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
const INSERT_SESSION_SDK_INFO = 'INSERT INTO api_session_posture (api_session_id, identity_id, woken_at, unlocked_at, sdk_info, updated_at) VALUES (?, ?, NULL, NULL, ?, ?)';
/** The authenticator with what the two other rows copy: the stored leaf and the identity's SDK info. */
const CERT_LOGIN_READ = `SELECT a.id, a.identity_id, a.cert_pem, i.sdk_info FROM authenticators AS a JOIN identities AS i ON i.id = a.identity_id
  WHERE a.cert_fingerprint = ?`;

/** The session check's read, as the controller makes it (src/auth/session-repo.ts), written out. */
const SESSION_CHECK = `SELECT json_array(s.id, s.created_at, s.updated_at, s.tags, s.is_system, s.identity_id, s.authenticator_id, s.ip_address,
    s.config_types, s.is_mfa_required, s.is_mfa_complete, s.passed_mfa_at, s.is_cert_extendable, s.improper_client_cert_chain,
    s.last_activity_at, i.id, i.name, i.type_id, i.is_admin, i.is_default_admin, i.auth_policy_id, i.disabled_at, i.disabled_until,
    i.services_changed_at, p.id, p.name, p.require_totp, p.require_ext_jwt_signer) AS session
  FROM api_sessions AS s JOIN identities AS i ON i.id = s.identity_id LEFT JOIN auth_policies AS p ON p.id = i.auth_policy_id
  WHERE s.token_hash = ?`;

/** Keeps the CPU busy for `micros` µs: a stand-in for work a controller does around the floor's read. */
function spin(micros: number): void {
  const until = performance.now() + micros / 1000;
  while (performance.now() < until);
}

export function floorApp(query: Query, cert?: CertFloor): Hono {
  const app = new Hono();
  const pads = new Map<number, string>();
  const utf8 = new TextEncoder();
  app.get('/__floor/read/:id', async (c) => {
    const rows = await query('SELECT id, name, role_attributes FROM identities WHERE id = ?', [c.req.param('id')]);
    if (rows.length === 0) return c.json({ error: { code: 'NOT_FOUND' } }, 404);
    const work = Number(c.req.query('work') ?? 0);
    if (work > 0 && work <= 10_000) spin(work);
    const bytes = Number(c.req.query('bytes') ?? 0);
    if (!(bytes > 0 && bytes <= 16 * 1024 * 1024)) return c.json({ data: rows[0], meta: {} });
    // JSON whitespace after the envelope: the answer is built and sent like any other, and its size is exact.
    const text = JSON.stringify({ data: rows[0], meta: {} });
    const fill = Math.max(0, bytes - utf8.encode(text).length);
    let pad = pads.get(fill);
    if (pad === undefined) pads.set(fill, (pad = ' '.repeat(fill)));
    return c.body(text + pad, 200, { 'content-type': 'application/json' });
  });
  app.get('/__floor/session', async (c) => {
    const token = c.req.header('zt-session');
    const rows = token ? await query(SESSION_CHECK, [await hashSessionToken(token)]) : [];
    if (rows.length === 0) return c.json({ error: { code: 'UNAUTHORIZED' } }, 401);
    return c.json({ data: rows[0], meta: {} });
  });
  app.post('/__floor/login', async (c) => {
    const { username, password } = await c.req.json<{ username: string; password: string }>();
    const rows = await query('SELECT id, password_hash FROM authenticators WHERE username = ?', [username]);
    const ok = rows.length > 0 && (await verifyPassword(password, rows[0].password_hash as string));
    if (!ok) return c.json({ error: { code: 'INVALID_AUTH' } }, 401);
    return c.json({ data: { id: rows[0].id }, meta: {} });
  });
  /** A certificate login's start, as both cert floors make it: the body read, the fingerprint, the one read. */
  const presented = async (c: Context, read: string) => {
    await c.req.text();
    const fingerprint = cert?.fingerprint(c);
    const rows = fingerprint ? await query(read, [fingerprint]) : [];
    return rows.length > 0 ? { fingerprint: fingerprint!, row: rows[0] as Record<string, string> } : undefined;
  };
  const sessionAnswer = (c: Context, id: string, token: string, identityId: string) => c.json({ data: { id, token, identity: { id: identityId } }, meta: {} });
  app.post('/__floor/cert-login', async (c) => {
    const found = cert && (await presented(c, 'SELECT id, identity_id FROM authenticators WHERE cert_fingerprint = ?'));
    if (!found) return c.json({ error: { code: 'INVALID_AUTH' } }, 401);
    const { id: authenticatorId, identity_id: identityId } = found.row;
    const { token, tokenHash } = await newSessionToken();
    const now = Date.now();
    const id = cuid();
    await cert.run(INSERT_SESSION, [id, now, now, '{}', 0, tokenHash, identityId, authenticatorId, '127.0.0.1', '[]', now]);
    return sessionAnswer(c, id, token, identityId);
  });
  // The same login writing the three rows a faithful one writes, in one transaction: the session, its
  // certificate (the leaf as stored) and its SDK info. What the store alone costs a login.
  app.post('/__floor/cert-login-rows', async (c) => {
    const found = cert && (await presented(c, CERT_LOGIN_READ));
    if (!found) return c.json({ error: { code: 'INVALID_AUTH' } }, 401);
    const { id: authenticatorId, identity_id: identityId, cert_pem: pem, sdk_info: sdkInfo } = found.row;
    const { token, tokenHash } = await newSessionToken();
    const now = Date.now();
    const id = cuid();
    await cert.runAll([
      { sql: INSERT_SESSION, args: [id, now, now, '{}', 0, tokenHash, identityId, authenticatorId, '127.0.0.1', '[]', now] },
      { sql: INSERT_SESSION_CERTIFICATE, args: [cuid(), now, now, '{}', 0, id, identityId, 'CN=floor', found.fingerprint, now, now + 86_400_000, pem ?? ''] },
      { sql: INSERT_SESSION_SDK_INFO, args: [id, identityId, sdkInfo ?? '{}', now] },
    ]);
    return sessionAnswer(c, id, token, identityId);
  });
  return app;
}
