import { joinBytes } from './encoding.js';

/**
 * Reads a body stream whole, refusing more than `maxBytes`: a declared length over the cap is refused before
 * reading, and the stream is cancelled as soon as the bytes read pass it. `tooLarge` makes the error to throw.
 */
export async function readCapped(body: ReadableStream<Uint8Array> | null, declaredLength: string | null, maxBytes: number, tooLarge: () => Error): Promise<Uint8Array> {
  if (declaredLength !== null && Number(declaredLength) > maxBytes) {
    await body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return joinBytes(chunks, total);
}
