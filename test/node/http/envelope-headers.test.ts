/**
 * `withHeaders` (src/http/envelope.ts): headers added by remaking an envelope response (Node) or in place
 * (Workers, and any other response) give the same answer, in any mix, and none set earlier is lost.
 */
import { describe, expect, it } from 'vitest';
import { hasHeader, json, withHeaders } from '../../../src/http/envelope.js';

const headersOf = (r: Response) => Object.fromEntries([...r.headers.entries()].sort());

describe('withHeaders', () => {
  for (const remake of [true, false]) {
    it(`adds and replaces headers, joins vary, keeps status and body (remake: ${remake})`, async () => {
      const base = json({ data: { a: 1 }, meta: {} }, 201, { vary: 'Accept', 'x-one': '1' });
      const out = withHeaders(withHeaders(base, { 'x-two': '2', 'x-one': 'one' }, remake), { vary: 'Origin' }, remake);
      expect(out.status).toBe(201);
      expect(await out.json()).toEqual({ data: { a: 1 }, meta: {} });
      expect(headersOf(out)).toEqual({ 'content-type': 'application/json', vary: 'Accept, Origin', 'x-one': 'one', 'x-two': '2' });
      expect(hasHeader(out, 'x-two')).toBe(true);
      expect(hasHeader(out, 'x-three')).toBe(false);
    });
  }

  it('keeps a header set in place when a later layer remakes the response', () => {
    const inPlace = withHeaders(json({ data: {}, meta: {} }), { 'cache-control': 'no-store' }, false);
    const remade = withHeaders(inPlace, { 'x-request-id': 'r1' }, true);
    expect(headersOf(remade)).toEqual({ 'cache-control': 'no-store', 'content-type': 'application/json', 'x-request-id': 'r1' });
  });

  it('changes a response the envelope did not make in place', () => {
    const own = new Response('x', { headers: { 'content-type': 'text/plain' } });
    expect(withHeaders(own, { 'x-request-id': 'r2' }, true)).toBe(own);
    expect(own.headers.get('x-request-id')).toBe('r2');
  });
});
