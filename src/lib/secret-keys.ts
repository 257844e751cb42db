/**
 * Keys derived from CONTROLLER_SECRET: HKDF-SHA256, one label per purpose, so each purpose's key is
 * independent of the others. Derived once per secret and label, per process or isolate.
 */
const derived = new Map<string, Promise<CryptoKey>>();

export function secretKey(secret: string, label: string, algorithm: { name: 'AES-GCM'; length: 256 } | { name: 'HMAC'; hash: 'SHA-256'; length: 256 }, usages: ('encrypt' | 'decrypt' | 'sign')[]): Promise<CryptoKey> {
  const cacheKey = `${label}\n${secret}`;
  let key = derived.get(cacheKey);
  if (!key) {
    key = (async () => {
      const material = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), 'HKDF', false, ['deriveKey']);
      return crypto.subtle.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(32), info: new TextEncoder().encode(label) }, material, algorithm, false, usages);
    })();
    derived.set(cacheKey, key);
  }
  return key;
}
