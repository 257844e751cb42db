import { triggerRaised } from '../../crud/repo.js';
import { listEntities, referencedError, resourceService, type ListResult } from '../../crud/service.js';
import type { ListQueryParams } from '../../crud/list-query.js';
import type { Deps } from '../../deps.js';
import { ApiError, fieldError } from '../../errors.js';
import type { ClientExternalJwtSignerDetail } from '../../generated/client-types.js';
import type { ExternalJwtSignerPatch } from '../../generated/management-types.js';
import { sha1Hex } from '../../lib/encoding.js';
import { x509 } from '../../pki/x509.js';
import { externalJwtSignerEntity, type ExternalJwtSignerRow } from './entity.js';
import { renderClientExternalJwtSigner, renderExternalJwtSigner } from './mapper.js';
import { enabledSignersWhere, policiesUsingSigner, SIGNER_REFERENCED } from './repo.js';

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/** The certificate fields derived from `certPem`; 400 INVALID_CERT_PEM unless it is exactly one certificate. */
async function certificateFields(pem: string) {
  const blocks = [...pem.matchAll(PEM_BLOCK)];
  if (blocks.length !== 1 || blocks[0][1] !== 'CERTIFICATE') throw new ApiError('INVALID_CERT_PEM');
  let cert: x509.X509Certificate;
  try {
    cert = new x509.X509Certificate(blocks[0][0]);
  } catch {
    throw new ApiError('INVALID_CERT_PEM');
  }
  const cn = cert.subjectName.getField('CN')[0] ?? '';
  return { fingerprint: await sha1Hex(cert.rawData), commonName: cn, notBefore: cert.notBefore.getTime(), notAfter: cert.notAfter.getTime() };
}

const NO_CERT = { fingerprint: null, commonName: null, notBefore: null, notAfter: null };

type SignerValues = { certPem?: string | null; jwksEndpoint?: string | null } & Record<string, unknown>;

/** A JWKS endpoint must be an absolute http(s) URL; where it may point is checked when it is fetched. */
function checkEndpoint(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw fieldError('jwksEndpoint', 'must be an absolute URL', url);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw fieldError('jwksEndpoint', 'must be an http or https URL', url);
}

/**
 * `certPem` xor `jwksEndpoint` on the resulting record (the controller answers the odd code
 * REFERENCED_ENTITY_NOT_FOUND, kept because clients key on it), and the certificate fields derived.
 */
async function checkKeySource(values: SignerValues, existing: ExternalJwtSignerRow | undefined): Promise<void> {
  const certPem = values.certPem !== undefined ? values.certPem : (existing?.certPem ?? null);
  const jwksEndpoint = values.jwksEndpoint !== undefined ? values.jwksEndpoint : (existing?.jwksEndpoint ?? null);
  if (!certPem && !jwksEndpoint) throw fieldError('certPem', 'one of certPem or jwksEndpoint is required', null, 'REFERENCED_ENTITY_NOT_FOUND');
  if (certPem && jwksEndpoint) throw fieldError('jwksEndpoint', 'only one of certPem or jwksEndpoint may be set', jwksEndpoint, 'REFERENCED_ENTITY_NOT_FOUND');
  if (jwksEndpoint && values.jwksEndpoint !== undefined) checkEndpoint(jwksEndpoint);
  if (values.certPem !== undefined) Object.assign(values, values.certPem ? await certificateFields(values.certPem) : NO_CERT);
}

/**
 * A PATCH leaves absent and null properties alone, except that an explicit null clears `certPem` or
 * `jwksEndpoint`: otherwise a signer could never switch from one key source to the other by PATCH.
 */
function explicitNulls(values: SignerValues, body: ExternalJwtSignerPatch, mode: 'update' | 'patch'): void {
  if (mode !== 'patch') return;
  if (body.certPem === null) values.certPem = null;
  if (body.jwksEndpoint === null) values.jwksEndpoint = null;
}

/** External JWT signers (reference auth-and-pki §8.1), management API, admin. */
const crud = resourceService(externalJwtSignerEntity, {
  render: (r) => renderExternalJwtSigner(r.row),
  create: { check: (_deps, values) => checkKeySource(values, undefined) },
  update: {
    check: async (_deps, values, existing, body, mode) => {
      explicitNulls(values, body as ExternalJwtSignerPatch, mode);
      await checkKeySource(values, existing);
    },
  },
  remove: {
    async check(deps, existing) {
      const users = await policiesUsingSigner(deps.db, existing.id);
      if (users.length > 0) throw referencedError('externalJwtSigners', 'authPolicies', users, 'externalJwtSignerId');
    },
  },
});

const PUBLIC_FIELDS = ['id', 'createdAt', 'updatedAt', 'tags', 'name', 'externalAuthUrl', 'clientId', 'audience', 'targetToken'];
/** Anonymous callers may filter and sort on the public fields only: a filter on `issuer` would read it out. */
const clientView = {
  ...externalJwtSignerEntity,
  fields: Object.fromEntries(Object.entries(externalJwtSignerEntity.fields).filter(([k]) => PUBLIC_FIELDS.includes(k))),
};

export const externalJwtSignerService = {
  ...crud,
  /** A policy written between the check and the delete is caught by the store's trigger: the same 409. */
  async remove(deps: Deps, id: string): Promise<void> {
    try {
      await crud.remove(deps, id);
    } catch (e) {
      if (!triggerRaised(e, SIGNER_REFERENCED)) throw e;
      throw referencedError('externalJwtSigners', 'authPolicies', await policiesUsingSigner(deps.db, id), 'externalJwtSignerId');
    }
  },
};

/** The client API's anonymous list (§8.4): enabled signers only, public fields only. */
export function listClientSigners(deps: Deps, list: ListQueryParams): Promise<ListResult<ClientExternalJwtSignerDetail>> {
  return listEntities(deps, clientView, list, {
    where: enabledSignersWhere(),
    render: (r) => renderClientExternalJwtSigner(r.row),
  });
}
