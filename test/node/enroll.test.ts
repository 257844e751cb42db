import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrollments } from '../../src/db/schema/index.js';
import { createNodeTestApp, recordReplies, type NodeTestApp } from '../helpers/node-app.js';
import { enrollmentStore } from '../shared/enrollment-fixtures.js';
import { enrollSuite } from '../shared/enroll.suite.js';

let t: NodeTestApp;
/** Every response (headers and body) the suite received. */
const seen: string[] = [];
/** Token hashes of every enrollment the suite created, collected before they are consumed. */
const hashes = new Set<string>();
beforeAll(async () => {
  t = await createNodeTestApp();
  recordReplies(t.client, seen);
  const request = t.client.request.bind(t.client);
  t.client.request = async (path, options) => {
    const reply = await request(path, options);
    for (const row of await t.deps.db.select({ h: enrollments.tokenHash, s: enrollments.jwtSealed }).from(enrollments)) hashes.add(`${row.h} ${row.s.slice(3, 40)}`);
    return reply;
  };
});
afterAll(() => t?.close());

enrollSuite(() => t.client, () => enrollmentStore(t.deps.db));

describe('robustness and secrets', () => {
  it('no request of the suite above failed with an unexpected (500) error', () => {
    expect(t.logs.filter((l) => l.includes('unhandled'))).toEqual([]);
  });

  it('no reply or log line carries a device password, a stored token hash or a sealed JWT', () => {
    expect(seen.length).toBeGreaterThan(100);
    expect(hashes.size).toBeGreaterThan(10);
    const secrets = ['device-Passw0rd', 'password-1', 'renewed-Passw0rd', 'has-digit-9', 'no-digits-here', ...[...hashes].flatMap((h) => h.split(' '))];
    for (const text of [...seen, ...t.logs]) {
      for (const secret of secrets) expect(text.includes(secret), `${secret} in ${text.slice(0, 200)}`).toBe(false);
    }
  });
});
