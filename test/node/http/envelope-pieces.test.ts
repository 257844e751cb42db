import { describe, expect, it } from 'vitest';
import { json, withHeaders } from '../../../src/http/envelope.js';
import { serialisedNow } from '../../../src/lib/json.js';

describe('a large answer given as pieces', () => {
  const page = () => serialisedNow(Array.from({ length: 3000 }, (_, i) => ({ id: `s${i}`, name: 'x'.repeat(100) }))).value;

  it('is streamed whole with its length, and a remade response (added headers) streams it again', async () => {
    const body = { data: page(), meta: {} };
    const expected = JSON.stringify({ data: JSON.parse(JSON.stringify(body.data)), meta: {} });
    const response = json(body);
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(expected)));
    const remade = withHeaders(response, { 'x-added': '1' }, true);
    expect(remade.headers.get('x-added')).toBe('1');
    expect(remade.headers.get('content-length')).toBe(String(Buffer.byteLength(expected)));
    expect(await remade.text()).toBe(expected);
    expect(await json(body).text()).toBe(expected);
  });
});
