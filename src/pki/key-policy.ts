import type { x509 } from './x509.js';

/** Largest CSR or certificate PEM accepted (a 8192-bit RSA CSR with SANs is well under this). */
export const MAX_PEM_BYTES = 16 * 1024;

const CURVES = new Set(['P-256', 'P-384', 'P-521']);

/**
 * The keys and signatures the controller accepts in CSRs and client certificates (docs/pki.md):
 * ECDSA P-256/P-384/P-521, RSA 2048..8192 bits, Ed25519; signatures with SHA-256 or stronger.
 * Returns the reason a key or signature is refused, or undefined.
 */
export function keyPolicyViolation(publicKey: x509.PublicKey, signatureAlgorithm: { name: string } & { hash?: { name: string } }): string | undefined {
  const alg = publicKey.algorithm as { name: string } & { namedCurve?: string; modulusLength?: number };
  if (alg.name === 'ECDSA' || alg.name === 'ECDH') {
    if (!alg.namedCurve || !CURVES.has(alg.namedCurve)) return `unsupported EC curve ${alg.namedCurve ?? 'unknown'}`;
  } else if (alg.name === 'RSASSA-PKCS1-v1_5' || alg.name === 'RSA-PSS' || alg.name === 'RSA-OAEP') {
    const bits = alg.modulusLength ?? 0;
    if (bits < 2048) return `RSA key of ${bits} bits is too weak (at least 2048)`;
    if (bits > 8192) return `RSA key of ${bits} bits is too large (at most 8192)`;
  } else if (alg.name !== 'Ed25519') {
    return `unsupported key algorithm ${alg.name}`;
  }
  const hash = signatureAlgorithm.hash?.name;
  if (hash === 'SHA-1' || hash === 'MD5') return `signature hash ${hash} is too weak`;
  return undefined;
}
