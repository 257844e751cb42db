import type { ClientCertificate, Deps } from '../deps.js';
import { ApiError, messageError } from '../errors.js';
import { shortId } from '../lib/ids.js';
import { chainToAnchor, parsePresented } from '../pki/chain.js';
import type { IssuedCertificate } from '../pki/types.js';
import { mintToken, type PreparedEnrollment } from './create.js';
import { consumeEnrollment, insertEnrollment, type EnrollmentRow } from './repo.js';
import { replaceRouterCertificate, routerByFingerprint, routerExists, routerEnrolledStatement, routerEnrollmentsCascade, routerUnenrolledStatement, type RouterKind } from './router-repo.js';

const METHOD = { edge: 'erott', transit: 'trott' } as const;

/** What a router receives: the trust bundle (enrollment only), its client chain and its server chain. */
export interface RouterCertificates {
  ca?: string;
  cert: string;
  serverCert: string;
}

/**
 * A router's enrollment (reference auth-and-pki §5.1): `erott` for an edge router, `trott` for a transit
 * router, expiring after the enrollment duration, its JWT naming the router as subject. Written in the
 * batch that creates (or re-enrolls) the router.
 */
export async function prepareRouterEnrollment(deps: Deps, kind: RouterKind, routerId: string): Promise<PreparedEnrollment> {
  const id = shortId();
  const method = METHOD[kind];
  const now = deps.now();
  const expiresAt = now + deps.config.enrollmentDurationMinutes * 60_000;
  const minted = await mintToken(deps, routerId, method, expiresAt);
  return {
    id,
    method,
    statement: (d) =>
      insertEnrollment(d.db, {
        id,
        createdAt: now,
        updatedAt: now,
        tags: '{}',
        method,
        edgeRouterId: kind === 'edge' ? routerId : null,
        transitRouterId: kind === 'transit' ? routerId : null,
        tokenHash: minted.tokenHash,
        jwtSealed: minted.jwtSealed,
        issuedAt: now,
        expiresAt,
      }),
  };
}

/** The statements of a re-enrollment: the router's enrollments replaced by the new one, its certificate forgotten. */
export function reEnrollStatements(deps: Deps, kind: RouterKind, routerId: string, enrollment: PreparedEnrollment) {
  return [routerEnrollmentsCascade(deps.db, kind, routerId), enrollment.statement(deps), routerUnenrolledStatement(deps.db, kind, routerId, deps.now())];
}

/** The enrollments that go with a deleted router. */
export function routerEnrollmentsRemoval(deps: Deps, kind: RouterKind, routerId: string) {
  return routerEnrollmentsCascade(deps.db, kind, routerId);
}

const csrError = (message: string) => messageError('COULD_NOT_PROCESS_CSR', message);

/** Why a CSR was refused (the cause message of the PKI's error). */
function reason(e: ApiError): string {
  return e.causeDetail?.message ?? 'could not be processed';
}

/**
 * Issues a router's server and client certificates (reference §6.2 "router server" / "router client"):
 * SANs from the CSRs (never a SPIFFE id), the client certificate's common name the router id. A CSR that
 * cannot be used is 400 COULD_NOT_PROCESS_CSR naming which one.
 */
async function issueRouterCertificates(deps: Deps, routerId: string, clientCsr: string, serverCsr: string, commonName: 'required' | 'forced') {
  const now = new Date(deps.now());
  let server: IssuedCertificate;
  try {
    server = await deps.pki.issueCertificate(serverCsr, { kind: 'routerServer' }, now);
  } catch (e) {
    if (e instanceof ApiError) throw csrError(`invalid server CSR: ${reason(e)}`);
    throw e;
  }
  let client: IssuedCertificate;
  try {
    client = await deps.pki.issueCertificate(clientCsr, { kind: 'routerClient', routerId, commonName }, now);
  } catch (e) {
    if (e instanceof ApiError) throw csrError(`invalid client CSR: ${reason(e)}`);
    throw e;
  }
  return { client, server };
}

const present = (pem: string | undefined): pem is string => typeof pem === 'string' && pem.trim() !== '';

/**
 * `erott` / `trott` (reference §5.8), after the token checks of `enroll`: both certificates are issued,
 * then one batch marks the router enrolled (fingerprint, certificate, verified) while the enrollment is
 * still live and deletes the enrollment; the delete's row count decides, so of concurrent attempts with
 * one token exactly one router certificate is recorded and every other attempt is INVALID_ENROLLMENT_TOKEN.
 */
export async function enrollRouter(deps: Deps, enrollment: EnrollmentRow, clientCsr: string | undefined, serverCsr: string | undefined): Promise<RouterCertificates> {
  const kind: RouterKind = enrollment.method === 'erott' ? 'edge' : 'transit';
  const routerId = (kind === 'edge' ? enrollment.edgeRouterId : enrollment.transitRouterId) ?? '';
  // An enrollment outliving its router (a re-enrollment racing the router's delete) enrolls nothing.
  if (!(await routerExists(deps.db, kind, routerId))) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
  if (kind === 'edge') {
    if (!present(serverCsr)) throw messageError('MISSING_OR_INVALID_CSR', 'invalid server CSR');
    if (!present(clientCsr)) throw messageError('MISSING_OR_INVALID_CSR', 'invalid client CSR');
  } else {
    if (!present(serverCsr)) throw csrError('invalid server CSR: no CSR supplied');
    if (!present(clientCsr)) throw csrError('invalid client CSR: no CSR supplied');
  }
  const { client, server } = await issueRouterCertificates(deps, routerId, clientCsr, serverCsr, kind === 'edge' ? 'required' : 'forced');
  const now = deps.now();
  const enrolled = routerEnrolledStatement(deps.db, kind, routerId, enrollment, { fingerprint: client.fingerprint, certPem: client.chainPem }, now);
  if (!(await consumeEnrollment(deps.db, enrollment, now, null, [enrolled]))) throw new ApiError('INVALID_ENROLLMENT_TOKEN');
  return { ca: deps.pki.trustBundlePem(), cert: client.chainPem, serverCert: server.chainPem };
}

/**
 * `POST /enroll/extend/router` (reference §6.6): a router presenting its current client certificate gets
 * new client and server certificates; the new client certificate replaces the old one at once (a
 * conditional update on the old fingerprint decides between concurrent extensions), so the old one no
 * longer names the router.
 */
export async function extendRouter(deps: Deps, presented: ClientCertificate | undefined, clientCsr: string, serverCsr: string): Promise<RouterCertificates> {
  const unauthorized = () => new ApiError('UNAUTHORIZED');
  if (!presented) throw unauthorized();
  let fingerprint = presented.fingerprintSha1;
  if (presented.chainDer.length > 0) {
    // The leaf: the certificate whose key the TLS handshake proved. It must chain to the controller's root.
    const leaf = await parsePresented(presented.chainDer);
    if (!leaf) throw unauthorized();
    fingerprint = leaf.fingerprint;
    if (!(await chainToAnchor(leaf.cert, [deps.pki.signer.cert, ...leaf.intermediates], [deps.pki.root.cert], new Date(deps.now())))) throw unauthorized();
  }
  if (!fingerprint) throw unauthorized();
  const router = await routerByFingerprint(deps.db, fingerprint);
  if (!router) throw unauthorized();
  const { client, server } = await issueRouterCertificates(deps, router.id, clientCsr, serverCsr, 'required');
  const applied = await replaceRouterCertificate(deps.db, router.kind, router.id, fingerprint, { fingerprint: client.fingerprint, certPem: client.chainPem }, deps.now());
  if (!applied) throw unauthorized();
  return { cert: client.chainPem, serverCert: server.chainPem };
}
