import { fromBase64, sha1Hex } from '../lib/encoding.js';
import { x509 } from './x509.js';

/** Deepest chain followed from a leaf to an anchor. */
const MAX_DEPTH = 6;

function isCa(cert: x509.X509Certificate): boolean {
  return cert.getExtension(x509.BasicConstraintsExtension)?.ca === true;
}

function validAt(cert: x509.X509Certificate, now: Date): boolean {
  return cert.notBefore.getTime() <= now.getTime() && now.getTime() <= cert.notAfter.getTime();
}

async function signedBy(cert: x509.X509Certificate, issuer: x509.X509Certificate): Promise<boolean> {
  if (cert.issuer !== issuer.subject) return false;
  try {
    return await cert.verify({ publicKey: issuer.publicKey, signatureOnly: true });
  } catch {
    return false;
  }
}

/**
 * Builds a chain from `leaf` to one of `anchors`, through the `intermediates` the client sent
 * (reference auth-and-pki §3.2): the leaf's own validity is ignored (the auth policy decides about
 * expired leaves), every CA on the way must be a CA and valid now. Returns the anchor reached, or
 * undefined.
 */
export async function chainToAnchor(leaf: x509.X509Certificate, intermediates: x509.X509Certificate[], anchors: x509.X509Certificate[], now: Date): Promise<x509.X509Certificate | undefined> {
  let current = leaf;
  const used = new Set<x509.X509Certificate>();
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    for (const anchor of anchors) {
      if (validAt(anchor, now) && (await signedBy(current, anchor))) return anchor;
    }
    let next: x509.X509Certificate | undefined;
    for (const candidate of intermediates) {
      if (used.has(candidate) || candidate === leaf || !isCa(candidate) || !validAt(candidate, now)) continue;
      if (await signedBy(current, candidate)) {
        next = candidate;
        break;
      }
    }
    if (!next) return undefined;
    used.add(next);
    current = next;
  }
  return undefined;
}

/** A presented TLS client certificate, parsed once. */
export interface PresentedLeaf {
  cert: x509.X509Certificate;
  fingerprint: string;
  /** Further certificates the client sent (untrusted intermediates). */
  intermediates: x509.X509Certificate[];
}

/** Parses the DER chain a runtime hands over (leaf first); undefined when the leaf does not parse. */
export async function parsePresented(chainDer: Uint8Array[]): Promise<PresentedLeaf | undefined> {
  if (chainDer.length === 0) return undefined;
  try {
    const cert = new x509.X509Certificate(chainDer[0] as BufferSource);
    const intermediates: x509.X509Certificate[] = [];
    for (const der of chainDer.slice(1)) {
      try {
        intermediates.push(new x509.X509Certificate(der as BufferSource));
      } catch {
        // An unparsable extra certificate is ignored, as an unusable intermediate.
      }
    }
    return { cert, fingerprint: await sha1Hex(chainDer[0]), intermediates };
  } catch {
    return undefined;
  }
}

/** The certificates of a PEM text (non-certificate and unparsable blocks skipped). */
export function certificatesOfPem(pem: string): x509.X509Certificate[] {
  const out: x509.X509Certificate[] = [];
  for (const block of pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []) {
    try {
      out.push(new x509.X509Certificate(fromBase64(block.replace(/-----[^-]+-----/g, '')) as BufferSource));
    } catch {
      // skipped
    }
  }
  return out;
}

/** DN string with the most specific RDN first, e.g. `CN=abc,O=NetFoundry,C=US` (reference §6.7). */
export function subjectString(cert: x509.X509Certificate): string {
  return new x509.Name(cert.subject).toJSON().reverse().flatMap((rdn) => Object.entries(rdn).flatMap(([k, vs]) => vs.map((v) => `${k}=${v}`))).join(',');
}
