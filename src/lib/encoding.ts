/** Byte/text encodings used across the project (web APIs only, so they run on workerd too). */

export function toBase64(bytes: Uint8Array | ArrayBuffer): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let s = '';
  for (let i = 0; i < view.length; i += 0x8000) s += String.fromCharCode(...view.subarray(i, i + 0x8000));
  return btoa(s);
}

export function fromBase64(text: string): Uint8Array {
  const bin = atob(text.replace(/\s+/g, ''));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function toHex(bytes: Uint8Array | ArrayBuffer): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let s = '';
  for (const b of view) s += b.toString(16).padStart(2, '0');
  return s;
}

/** Lower-case hex SHA-1: the fingerprint format of certificates throughout the API. */
export async function sha1Hex(data: Uint8Array | ArrayBuffer): Promise<string> {
  return toHex(await crypto.subtle.digest('SHA-1', data as BufferSource));
}

export async function sha256Hex(data: Uint8Array | ArrayBuffer): Promise<string> {
  return toHex(await crypto.subtle.digest('SHA-256', data as BufferSource));
}

/** Base64 broken into lines of 64 characters joined by `\n`, no trailing newline. */
export function wrap64(base64: string): string {
  return base64.match(/.{1,64}/g)?.join('\n') ?? '';
}

/** The chunks as one array of bytes (`total`: their summed length); a single chunk is returned as is. */
export function joinBytes(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
