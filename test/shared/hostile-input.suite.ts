import { beforeAll, describe, expect, it } from 'vitest';
import { CLIENT, MGMT, type Reply, type TestClient } from '../helpers/client.js';

function expect4xxEnvelope(reply: Reply, maxBytes = 2048): void {
  expect(reply.status, reply.text.slice(0, 300)).toBeGreaterThanOrEqual(400);
  expect(reply.status, reply.text.slice(0, 300)).toBeLessThan(500);
  expect(typeof reply.body?.error?.code, reply.text.slice(0, 300)).toBe('string');
  expect(reply.body.meta).toEqual({ apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' });
  expect(reply.text.length).toBeLessThanOrEqual(maxBytes);
}

/** Hostile bodies (issue 10): deep nesting, huge arrays, secrets in the wrong place, broken encodings. */
export function hostileInputSuite(client: () => TestClient) {
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
}
