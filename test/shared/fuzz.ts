import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { clientApi, managementApi } from '../../src/apis.js';
import type { Db } from '../../src/db/client.js';
import type { OperationSpec } from '../../src/http/operation.js';
import { CLIENT, MGMT, type Reply, type RequestOptions, type TestClient } from '../helpers/client.js';

/**
 * A seeded fuzzer generated from the operation tables (issue 10): for every operation of both APIs and
 * three callers (anonymous, a non-admin, the admin), hostile bodies (wrong types, deep nesting, huge
 * arrays and strings, NUL, invalid UTF-8, secrets in odd places), hostile path and query parameters and
 * hostile headers. Every answer must be an envelope and never a 5xx (501 only where no handler exists);
 * no answer may contain the secret planted in the request; a refused request must leave the store as it
 * was (row counts of every table, and the update stamps of the entities).
 */

export type Role = 'anonymous' | 'user' | 'admin';
export type CaseKind = 'body' | 'params' | 'headers';

export interface FuzzCase {
  api: 'client' | 'management';
  op: OperationSpec;
  role: Role;
  kind: CaseKind;
  path: string;
  options: RequestOptions;
  label: string;
}

/** mulberry32: a small seeded PRNG, so a failing case can be replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Planted in password-like fields of every body: no answer may ever contain it. */
export const SECRET = 'Fuzz-Secret-7f3a9c';

const APIS = { client: { base: CLIENT, def: clientApi }, management: { base: MGMT, def: managementApi } } as const;

/** Operations that end the caller's own session when they succeed; the fuzzer would log itself out. */
const SKIP = new Set(['deleteCurrentApiSession']);

const encoder = new TextEncoder();

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)];
}

function nested(depth: number, open: string, close: string, inner = ''): string {
  return open.repeat(depth) + inner + close.repeat(depth);
}

/** Hostile bodies; each is raw bytes or text sent as application/json unless it says otherwise. */
function hostileBody(rand: () => number): { raw: string | Uint8Array; contentType?: string; label: string } {
  const secretish = { password: SECRET, currentPassword: SECRET, token: SECRET, secret: SECRET, code: SECRET };
  const choices: (() => { raw: string | Uint8Array; contentType?: string; label: string })[] = [
    () => ({ raw: JSON.stringify({ name: [1, 2], tags: 'x', roleAttributes: { a: 1 }, isAdmin: 'yes', type: 7, username: 42, ...secretish, enrollment: 'x', durationMinutes: 'soon', method: 9, identityId: {}, primary: [], secondary: 'x' }), label: 'wrong types' }),
    () => ({ raw: JSON.stringify([{ username: 'someone', ...secretish }]), label: 'array of credentials' }),
    () => ({ raw: JSON.stringify(pick(rand, [null, true, 12, 'text', [], [[]]])), label: 'scalar or empty' }),
    () => ({ raw: nested(500 + Math.floor(rand() * 20_000), '[', ']'), label: 'deep arrays' }),
    () => ({ raw: nested(500 + Math.floor(rand() * 5_000), '{"a":', '}', '1'), label: 'deep objects' }),
    () => ({ raw: JSON.stringify({ name: 'x'.repeat(200_000 + Math.floor(rand() * 600_000)), ...secretish }), label: 'huge string' }),
    () => ({ raw: JSON.stringify({ tags: Array.from({ length: 50_000 + Math.floor(rand() * 50_000) }, (_, i) => i), ...secretish }), label: 'huge array' }),
    () => ({ raw: JSON.stringify({ name: 'a\u0000b', username: '\u0000admin', tags: { 'k\u0000': 'v' }, roleAttributes: ['\u0000'], ...secretish }), label: 'NUL' }),
    () => ({ raw: new Uint8Array([...encoder.encode(`{"name":"`), 0xc3, 0x28, 0xff, ...encoder.encode(`","password":"${SECRET}"}`)]), label: 'invalid UTF-8' }),
    () => ({ raw: `{"name": "unterminated, "password": "${SECRET}`, label: 'broken JSON' }),
    () => ({ raw: `{"password":"${SECRET}"}`, contentType: pick(rand, ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', 'multipart/form-data; boundary=x', 'application/pkcs10']), label: 'other media type' }),
  ];
  return pick(rand, choices)();
}

const HOSTILE_IDS = [
  '..%2F..%2Fversion',
  '%00',
  'x'.repeat(5_000),
  "'%20OR%201%3D1%20--",
  '%E2%80%AE%E2%80%AE',
  '%F0%9F%92%A9',
  '%ZZ',
  '00000000-0000-0000-0000-000000000000',
  '-1',
  '%0d%0aSet-Cookie:%20x',
];

const HOSTILE_QUERY = [
  'filter=' + encodeURIComponent('name = "unterminated'),
  'filter=' + encodeURIComponent('('.repeat(5_000) + 'true' + ')'.repeat(5_000)),
  'filter=' + encodeURIComponent('name in [' + Array.from({ length: 3_000 }, (_, i) => `"${i}"`).join(',') + ']'),
  'limit=-1&offset=-5',
  'limit=99999999999999999999&offset=1e30',
  'limit=abc',
  'sort=' + encodeURIComponent('name; DROP TABLE identities'),
  'roleFilter=' + Array.from({ length: 300 }, (_, i) => `%23r${i}`).join('&roleFilter='),
  'roleSemantic=sometimes',
  'method=password%00',
  'method=' + 'x'.repeat(5_000),
  'id=%00&name=%FF',
];

function hostileHeaders(rand: () => number): Record<string, string> {
  return pick<Record<string, string>>(rand, [
    { 'zt-session': 'not-a-token' },
    { 'zt-session': crypto.randomUUID() },
    { 'zt-session': 'x'.repeat(8_000) },
    { 'content-type': 'application/json', accept: 'text/html;q=0.1, */*;q=0' },
    { origin: 'null', 'x-forwarded-for': '127.0.0.1, ::1, garbage', 'x-real-ip': 'not an address', 'cf-connecting-ip': '999.1.1.1' },
    { 'content-type': 'application/json; charset=binary', 'x-http-method-override': 'DELETE' },
    { authorization: 'Bearer ' + 'A'.repeat(4_000) + '.' + 'B'.repeat(4_000) },
  ]);
}

/** The path with its parameters filled in (hostile ones for `params` cases, a missing id otherwise). */
function fillPath(base: string, op: OperationSpec, rand: () => number, hostile: boolean): string {
  return base + op.path.replace(/\{[^}]+\}/g, () => (hostile ? pick(rand, HOSTILE_IDS) : 'does-not-exist'));
}

/** A valid-looking query for required parameters, so that other cases reach the body and the handler. */
function requiredQuery(op: OperationSpec): string {
  const parts = op.params.filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${encodeURIComponent(String(p.enum?.[0] ?? 'x'))}`);
  return parts.join('&');
}

export interface GenerateOptions {
  roles?: Role[];
  /** Only every n-th operation (a slice for slower runtimes). */
  every?: number;
  /** Cases per operation, caller and kind. */
  rounds?: number;
}

export function generateCases(seed: number, { roles = ['anonymous', 'user', 'admin'], every, rounds = 1 }: GenerateOptions = {}): FuzzCase[] {
  const rand = prng(seed);
  const cases: FuzzCase[] = [];
  let index = 0;
  for (const api of ['client', 'management'] as const) {
    const { base, def } = APIS[api];
    for (const op of def.operations) {
      if (SKIP.has(op.operationId)) continue;
      if (every && index++ % every !== 0) continue;
      const hasBody = op.params.some((p) => p.in === 'body') && op.method !== 'GET';
      for (const role of roles) {
        const kinds: CaseKind[] = hasBody ? ['body', 'params', 'headers'] : ['params', 'headers'];
        for (const kind of Array.from({ length: rounds }, () => kinds).flat()) {
          const query = requiredQuery(op);
          let path = fillPath(base, op, rand, kind === 'params');
          const options: RequestOptions = { method: op.method };
          let label: string = kind;
          if (kind === 'params') {
            const hostileQuery = pick(rand, HOSTILE_QUERY);
            path += `?${[hostileQuery, query].filter(Boolean).join('&')}`;
          } else if (query) path += `?${query}`;
          if (kind === 'body') {
            const body = hostileBody(rand);
            options.raw = body.raw;
            options.headers = { 'content-type': body.contentType ?? 'application/json' };
            label = `body: ${body.label}`;
          } else if (hasBody) {
            // Params and headers cases still carry a body that cannot be valid.
            options.raw = JSON.stringify([{ password: SECRET }]);
            options.headers = { 'content-type': 'application/json' };
          }
          if (kind === 'headers') {
            options.headers = { ...options.headers, ...hostileHeaders(rand) };
            label = `headers: ${Object.keys(options.headers).join(',')}`;
          }
          cases.push({ api, op, role, kind, path, options, label });
        }
      }
    }
  }
  return cases;
}

/** Row counts of every table and the update stamps of the entity tables: what a refused request must not change. */
export async function storeFingerprint(db: Db): Promise<Record<string, string>> {
  const tables = (await db.all<Record<string, unknown>>(sql`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\_%' ESCAPE '\\' AND name NOT LIKE 'd1_%' ORDER BY name`)).map(
    (r) => String(Object.values(r)[0]),
  );
  const out: Record<string, string> = {};
  for (const table of tables) {
    const columns = (await db.all<Record<string, unknown>>(sql.raw(`SELECT name FROM pragma_table_info('${table}')`))).map((r) => String(Object.values(r)[0]));
    // API sessions record activity at most once a minute whatever the request: only their number counts.
    const stamp = columns.includes('updated_at') && table !== 'api_sessions' ? ', COALESCE(SUM(updated_at), 0)' : '';
    const [row] = await db.all<Record<string, unknown>>(sql.raw(`SELECT COUNT(*)${stamp} FROM "${table}"`));
    out[table] = Object.values(row).map(String).join('/');
  }
  return out;
}

export interface FuzzRun {
  cases: number;
  byStatus: Record<number, number>;
  seconds: number;
}

export interface FuzzContext {
  client: TestClient;
  db: Db;
  tokens: Record<Role, string | undefined>;
  /** Logs a role in again (when a case ended its session, e.g. a disable of itself would). */
  relogin(role: Role): Promise<string | undefined>;
}

function handled(api: 'client' | 'management', op: OperationSpec): boolean {
  return op.operationId in APIS[api].def.handlers;
}

/** Runs the cases within a time budget; asserts on every reply as it goes. */
export async function runCases(cases: FuzzCase[], ctx: FuzzContext, budgetMs: number): Promise<FuzzRun> {
  const started = Date.now();
  const byStatus: Record<number, number> = {};
  let ran = 0;
  let before = await storeFingerprint(ctx.db);
  for (const c of cases) {
    if (Date.now() - started > budgetMs) break;
    const token = ctx.tokens[c.role];
    const headers = { ...c.options.headers };
    const reply: Reply = await ctx.client.request(c.path, { ...c.options, headers, token: headers['zt-session'] ? undefined : token });
    ran++;
    byStatus[reply.status] = (byStatus[reply.status] ?? 0) + 1;
    const where = `${c.api} ${c.op.operationId} as ${c.role}, ${c.label}: ${c.op.method} ${c.path.slice(0, 120)} -> ${reply.status} ${reply.text.slice(0, 300)}`;
    expect(reply.text.includes(SECRET), `secret echoed: ${where}`).toBe(false);
    if (reply.status >= 500) {
      expect(reply.status === 501 && !handled(c.api, c.op), `5xx: ${where}`).toBe(true);
    }
    if (reply.status >= 400) {
      expect(typeof reply.body?.error?.code, `not an envelope: ${where}`).toBe('string');
      expect(typeof reply.body?.error?.requestId, `no request id: ${where}`).toBe('string');
      expect(reply.body.meta, `no meta: ${where}`).toEqual({ apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' });
      expect(reply.text.length, `a long error: ${where}`).toBeLessThan(4096);
      const after = await storeFingerprint(ctx.db);
      expect(after, `store changed by a refused request: ${where}`).toEqual(before);
    } else {
      // Accepted (a list or detail that ignores what it does not know): the store may have changed.
      before = await storeFingerprint(ctx.db);
    }
    if (c.kind === 'body' && c.options.method !== 'GET') {
      expect(reply.status, `hostile body accepted: ${where}`).toBeGreaterThanOrEqual(400);
    }
    // A session can end by the request itself (never for these cases) or by expiry: check it is alive.
    if (token && reply.status === 401 && !headers['zt-session']) {
      const alive = await ctx.client.get(`${CLIENT}/current-api-session`, token);
      if (alive.status !== 200) ctx.tokens[c.role] = await ctx.relogin(c.role);
    }
  }
  return { cases: ran, byStatus, seconds: Math.round((Date.now() - started) / 100) / 10 };
}
