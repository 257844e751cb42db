import { x509 } from '../pki/x509.js';

/** A CA's `externalIdClaim` (reference auth-and-pki §7.4). */
export interface ExternalIdClaim {
  location: 'COMMON_NAME' | 'SAN_URI' | 'SAN_EMAIL' | null;
  matcher: 'ALL' | 'PREFIX' | 'SUFFIX' | 'SCHEME' | null;
  matcherCriteria: string | null;
  parser: 'NONE' | 'SPLIT' | null;
  parserCriteria: string | null;
  index: number | null;
}

function commonName(cert: x509.X509Certificate): string | undefined {
  for (const rdn of new x509.Name(cert.subject).toJSON()) if (rdn.CN?.length) return rdn.CN[0];
  return undefined;
}

function sans(cert: x509.X509Certificate, type: 'url' | 'email'): string[] {
  return (cert.getExtension(x509.SubjectAlternativeNameExtension)?.names.toJSON() ?? []).filter((n) => n.type === type).map((n) => n.value);
}

/**
 * The externalId a claim extracts from a leaf: candidates by location, kept and trimmed by the matcher,
 * split by the parser, then the `index`-th value. Undefined when there is none.
 */
export function extractExternalId(claim: ExternalIdClaim, cert: x509.X509Certificate): string | undefined {
  let candidates: string[];
  if (claim.location === 'COMMON_NAME') candidates = [commonName(cert)].filter((v): v is string => v !== undefined);
  else if (claim.location === 'SAN_URI') candidates = sans(cert, 'url');
  else if (claim.location === 'SAN_EMAIL') candidates = sans(cert, 'email');
  else return undefined;
  const criteria = claim.matcherCriteria ?? '';
  const matched: string[] = [];
  for (const c of candidates) {
    switch (claim.matcher) {
      case 'ALL':
        matched.push(c);
        break;
      case 'PREFIX':
        if (criteria !== '' && c.startsWith(criteria)) matched.push(c.slice(criteria.length));
        break;
      case 'SUFFIX':
        if (criteria !== '' && c.endsWith(criteria)) matched.push(c.slice(0, c.length - criteria.length));
        break;
      case 'SCHEME':
        if (criteria !== '' && claim.location === 'SAN_URI' && c.toLowerCase().startsWith(`${criteria.toLowerCase()}:`)) matched.push(c);
        break;
      default:
        return undefined;
    }
  }
  const values: string[] = [];
  for (const m of matched) {
    if (claim.parser === 'SPLIT') {
      if (!claim.parserCriteria) return undefined;
      values.push(...m.split(claim.parserCriteria));
    } else values.push(m);
  }
  const value = values[claim.index ?? 0];
  return value === undefined || value === '' ? undefined : value;
}
