import type { Deps } from '../../deps.js';
import { prepareEnrollment, type EnrollmentRequest } from '../../enrollment/create.js';
import { allCas, findAuthenticator, requestExtension } from '../../enrollment/repo.js';
import { fieldError, messageError, notFound } from '../../errors.js';
import { findEntity } from '../../crud/service.js';
import { parseDateTime } from '../../lib/time.js';
import { certificatesOfPem, chainToAnchor } from '../../pki/chain.js';
import { authenticatorCascade, removeAuthenticator } from '../authenticators/repo.js';
import { writeEnrollment } from '../enrollments/service.js';
import { identityEntity } from '../identities/entity.js';

/** `POST /authenticators/{id}/request-extend` (reference §6.5): flags a cert authenticator for extension. */
export async function requestExtend(deps: Deps, id: string, rollKeys: boolean): Promise<void> {
  const a = await findAuthenticator(deps.db, id);
  if (!a) throw notFound('authenticator', id);
  if (a.method !== 'cert') throw messageError('UNAUTHORIZED', 'authenticator is not a certificate authenticator');
  await requestExtension(deps.db, { id }, rollKeys, deps.now());
}

/**
 * `POST /identities/{id}/request-extend`: the same for every cert authenticator of an identity (the
 * controller leaves this one unimplemented; it is the obvious meaning of the operation).
 */
export async function requestExtendAll(deps: Deps, identityId: string, rollKeys: boolean): Promise<void> {
  await findEntity(deps, identityEntity, identityId);
  await requestExtension(deps.db, { identityId }, rollKeys, deps.now());
}

/**
 * `POST /authenticators/{id}/re-enroll` (reference §5.1): the authenticator becomes an enrollment again
 * (updb with its username; cert as ottca when its certificate chains to a registered CA, else ott). The
 * new enrollment, the authenticator's deletion and the end of its sessions are one batch.
 */
export async function reEnroll(deps: Deps, id: string, expiresAt: string): Promise<string> {
  const a = await findAuthenticator(deps.db, id);
  if (!a) throw notFound('authenticator', id);
  const at = parseDateTime(expiresAt);
  if (at === undefined) throw fieldError('expiresAt', 'expiresAt must be a date-time', expiresAt);
  let request: EnrollmentRequest;
  if (a.method === 'updb') request = { method: 'updb', identityId: a.identityId, expiresAt: at, username: a.username };
  else {
    const [leaf, ...rest] = certificatesOfPem(a.certPem ?? '');
    let caId: string | undefined;
    if (leaf && !a.isIssuedByNetwork) {
      for (const ca of await allCas(deps.db)) {
        const anchor = certificatesOfPem(ca.certPem)[0];
        if (anchor && (await chainToAnchor(leaf, rest, [anchor], new Date(deps.now())))) {
          caId = ca.id;
          break;
        }
      }
    }
    request = caId ? { method: 'ottca', identityId: a.identityId, expiresAt: at, caId } : { method: 'ott', identityId: a.identityId, expiresAt: at };
  }
  const prepared = await prepareEnrollment(deps, request, false, { usernameFreed: true });
  await writeEnrollment(deps, [prepared.statement(deps), ...authenticatorCascade(deps.db, a.id), removeAuthenticator(deps.db, a.id)], prepared.method);
  return prepared.id;
}
