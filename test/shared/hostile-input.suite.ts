import { beforeAll, describe, expect, it } from 'vitest';
import { CLIENT, MGMT, type Reply } from '../helpers/client.js';
import type { SuiteContext } from './suite.js';

function expect4xxEnvelope(reply: Reply, maxBytes = 2048): void {
  expect(reply.status, reply.text.slice(0, 300)).toBeGreaterThanOrEqual(400);
  expect(reply.status, reply.text.slice(0, 300)).toBeLessThan(500);
  expect(typeof reply.body?.error?.code, reply.text.slice(0, 300)).toBe('string');
  expect(reply.body.meta).toEqual({ apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' });
  expect(reply.text.length).toBeLessThanOrEqual(maxBytes);
}

/** Hostile bodies (issue 10): deep nesting, huge arrays, secrets in the wrong place, broken encodings. */
export default function hostileInputSuite({ client }: SuiteContext): void {
  let admin: string;
  beforeAll(async () => {
    admin = await client().login();
  });
  const post = (path: string, raw: string | Uint8Array, token?: string) => client().request(path, { raw, token, method: 'POST', headers: { 'content-type': 'application/json' } });

  describe('hostile JSON bodies', () => {
    it('deep nesting is a 400, anonymous or admin, arrays or objects, never a 500', async () => {
      for (const depth of [65, 3_300, 100_000]) {
        for (const [path, token] of [
          [`${CLIENT}/authenticate?method=password`, undefined],
          [`${MGMT}/identities`, admin],
        ] as const) {
          const arrays = await post(path, '['.repeat(depth) + ']'.repeat(depth), token);
          expect4xxEnvelope(arrays);
          expect(arrays.body.error.code).toBe('COULD_NOT_PARSE_BODY');
          const objects = await post(path, '{"a":'.repeat(depth) + '1' + '}'.repeat(depth), token);
          expect4xxEnvelope(objects);
        }
      }
      // Brackets inside strings are not nesting.
      const name = 'x' + '['.repeat(500);
      const ok = await post(`${MGMT}/identities`, JSON.stringify({ name: name.slice(0, 200), type: 'User', isAdmin: false }), admin);
      expect(ok.status).toBe(201);
    });

    it('a huge array body is refused without being reflected', async () => {
      const body = JSON.stringify(Array.from({ length: 80_000 }, (_, i) => `item-${i}`));
      expect(body.length).toBeLessThan(1024 * 1024);
      for (const [path, token] of [
        [`${CLIENT}/authenticate?method=password`, undefined],
        [`${MGMT}/identities`, admin],
      ] as const) {
        const reply = await post(path, body, token);
        expect4xxEnvelope(reply);
        expect(reply.text).not.toContain('item-1000');
      }
    });

    it('never echoes a password, wherever it sits in the body', async () => {
      const secret = 'Echo-Secret-4711';
      const bodies = [
        [{ username: 'someone', password: secret }],
        { username: ['a'], password: secret },
        { username: { nested: { password: secret } }, password: secret },
        { username: 'someone', password: { value: secret } },
      ];
      for (const body of bodies) {
        const reply = await post(`${CLIENT}/authenticate?method=password`, JSON.stringify(body));
        expect4xxEnvelope(reply);
        expect(reply.text).not.toContain(secret);
      }
      const broken = await post(`${CLIENT}/authenticate?method=password`, `{"username":"someone","password":"${secret}`);
      expect4xxEnvelope(broken);
      expect(broken.body.error.code).toBe('COULD_NOT_PARSE_BODY');
      expect(broken.text).not.toContain(secret);
      const badToken = await post(`${MGMT}/identities`, JSON.stringify({ name: { token: secret }, type: 'User', isAdmin: false }), admin);
      expect4xxEnvelope(badToken);
      expect(badToken.text).not.toContain(secret);
    });

    it('invalid UTF-8 is a 400', async () => {
      const bytes = new Uint8Array([...new TextEncoder().encode('{"username":"ab'), 0xff, 0xfe, ...new TextEncoder().encode('cd","password":"whatever1"}')]);
      const reply = await post(`${CLIENT}/authenticate?method=password`, bytes);
      expect4xxEnvelope(reply);
      expect(reply.body.error.code).toBe('COULD_NOT_PARSE_BODY');
    });

    it('long keys and values in a refused body are cut short in the cause', async () => {
      const key = 'k'.repeat(50_000);
      const reply = await post(`${MGMT}/identities`, JSON.stringify({ name: 'x'.repeat(100), type: 'User', isAdmin: 'no', tags: { [key]: ['v'.repeat(50_000)] } }), admin);
      expect4xxEnvelope(reply);
    });
  });

  describe('names and stored text', () => {
    const createIdentity = (body: Record<string, unknown>) => client().request(`${MGMT}/identities`, { token: admin, body: { type: 'User', isAdmin: false, ...body } });
    const uniq = () => crypto.randomUUID().slice(0, 8);

    it('refuses control and invisible formatting characters in names, tag keys and role attributes', async () => {
      const base = `nul-${uniq()}`;
      for (const name of [`${base}\u0000A`, `${base}\u0000B`, `${base}\u0007`, `${base}\u202e`, `${base}\u200b`, `${base}\u001b[31m`]) {
        const reply = await createIdentity({ name });
        expect4xxEnvelope(reply);
        expect(reply.body.error.cause.field).toBe('name');
      }
      expect4xxEnvelope(await createIdentity({ name: `${base}-tags`, tags: { 'a\u0000b': 'x' } }));
      expect4xxEnvelope(await createIdentity({ name: `${base}-attrs`, roleAttributes: ['ok', 'bad\u0000'] }));
      const plain = await createIdentity({ name: base });
      expect(plain.status).toBe(201);
      // A name that merely contains non-ASCII letters is fine.
      expect((await createIdentity({ name: `${base}-Zoë-東京` })).status).toBe(201);
    });

    it('refuses NUL in usernames, so a username cannot pose as another', async () => {
      const identityId = (await createIdentity({ name: `nuluser-${uniq()}` })).body.data.id;
      for (const username of ['admin\u0000x', `user\u0000${uniq()}`, `user\u202e${uniq()}`]) {
        const reply = await client().request(`${MGMT}/authenticators`, { token: admin, body: { method: 'updb', identityId, username, password: 'some-password' } });
        expect4xxEnvelope(reply);
        expect(reply.body.error.cause.field).toBe('username');
      }
    });

    it('caps names, tags, app data and role attributes', async () => {
      const n = uniq();
      expect((await createIdentity({ name: `${n}-`.padEnd(255, 'x') })).status).toBe(201);
      expect4xxEnvelope(await createIdentity({ name: `${n}-`.padEnd(256, 'x') }));
      expect4xxEnvelope(await createIdentity({ name: `${n}-bigtag`, tags: { big: 'x'.repeat(1000 * 1000) } }), 4096);
      expect4xxEnvelope(await createIdentity({ name: `${n}-bigapp`, appData: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, 'v'.repeat(4000)])) }), 4096);
      expect4xxEnvelope(await createIdentity({ name: `${n}-keys`, tags: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])) }));
      expect4xxEnvelope(await createIdentity({ name: `${n}-longkey`, tags: { ['k'.repeat(129)]: 1 } }));
      expect4xxEnvelope(await createIdentity({ name: `${n}-attrs`, roleAttributes: Array.from({ length: 101 }, (_, i) => `a${i}`) }));
      expect4xxEnvelope(await createIdentity({ name: `${n}-attr`, roleAttributes: ['a'.repeat(129)] }));
      expect4xxEnvelope(await createIdentity({ name: `${n}-ext`, externalId: 'e'.repeat(100_000) }));
      expect4xxEnvelope(await createIdentity({ name: `${n}-extnul`, externalId: `ext\u0000${n}` }));
      const ok = await createIdentity({ name: `${n}-fits`, tags: { k: 'v'.repeat(4096) }, roleAttributes: Array.from({ length: 100 }, (_, i) => `a${i}`) });
      expect(ok.status).toBe(201);
      // PATCH is held to the same caps.
      expect4xxEnvelope(await client().request(`${MGMT}/identities/${ok.body.data.id}`, { token: admin, method: 'PATCH', body: { tags: { big: 'x'.repeat(5000) } } }));
    });
  });
}
