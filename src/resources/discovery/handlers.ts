import type { Deps } from '../../deps.js';
import { messageError } from '../../http/errors.js';
import { links, ok } from '../../http/envelope.js';
import type { HandlerMap, OpContext } from '../../http/handler.js';
import { CLIENT_BASE, MANAGEMENT_BASE } from '../../http/paths.js';
import { iso } from '../../lib/time.js';
import { networkJwt } from '../../pki/network-jwt.js';
import { SPEC_IDS, specBody, specDetail, type SpecId } from './specs.js';
import { ENUMERATED_CAPABILITIES, versionDocument } from './version.js';

/** When this controller (process or isolate) started serving; set on first use, as Workers have no clock in global scope. */
let startedAt: number | undefined;

function version({ deps }: OpContext): Response {
  return ok(versionDocument(deps.config));
}

/** The trust bundle as a base64 certs-only PKCS#7, which SDKs fetch anonymously before enrolling. */
async function wellKnownCas({ deps }: OpContext): Promise<Response> {
  const body = await deps.pki.cacertsPkcs7Base64();
  return new Response(body, {
    status: 200,
    headers: { 'content-type': 'application/pkcs7-mime', 'content-transfer-encoding': 'base64' },
  });
}

function specId(ctx: OpContext): SpecId {
  const id = ctx.params.id;
  if (!(SPEC_IDS as readonly string[]).includes(id)) throw messageError('NOT_FOUND', `spec with id ${id} not found`);
  return id as SpecId;
}

/** The network JWT is signed once per process and served identically afterwards. */
const networkJwtCache = new WeakMap<Deps, Promise<string>>();

async function listNetworkJwts({ deps }: OpContext): Promise<Response> {
  let token = networkJwtCache.get(deps);
  if (!token) {
    const signing = networkJwt(deps.pki, deps.config.apiOrigin);
    networkJwtCache.set(deps, signing);
    signing.catch(() => networkJwtCache.delete(deps));
    token = signing;
  }
  return ok([{ name: 'default', token: await token }]);
}

/** This controller, the only member of its (single-node) cluster, with its API addresses. */
function controllerRecord(deps: Deps) {
  const since = (startedAt ??= deps.now());
  const id = deps.pki.serverFingerprint.slice(0, 16);
  const origin = deps.config.apiOrigin;
  return {
    id,
    name: deps.config.apiAddress,
    _links: links(`./controllers/${id}`),
    createdAt: iso(since),
    updatedAt: iso(since),
    tags: {},
    apiAddresses: {
      'edge-client': [{ url: origin + CLIENT_BASE, version: 'v1' }],
      'edge-management': [{ url: origin + MANAGEMENT_BASE, version: 'v1' }],
    },
    certPem: deps.pki.server.pem,
    ctrlAddress: deps.config.ctrlAddress,
    fingerprint: deps.pki.serverFingerprint,
    isOnline: true,
    lastJoinedAt: iso(since),
  };
}

function listControllers({ deps }: OpContext): Response {
  return ok([controllerRecord(deps)], { pagination: { limit: 10, offset: 0, totalCount: 1 }, filterableFields: ['id', 'name', 'ctrlAddress', 'fingerprint', 'isOnline', 'lastJoinedAt'] });
}

/** Listener addresses by protocol; this controller serves the edge APIs over HTTPS only. */
function listProtocols({ deps }: OpContext): Response {
  return ok({ [deps.config.apiScheme]: { address: deps.config.apiOrigin } });
}

const shared: HandlerMap = {
  listRoot: version,
  listVersion: version,
  listEnumeratedCapabilities: () => ok(ENUMERATED_CAPABILITIES),
  listSpecs: () => ok(SPEC_IDS.map(specDetail)),
  detailSpec: (ctx) => ok(specDetail(specId(ctx))),
  detailSpecBody: (ctx) => ok(specBody(specId(ctx))),
  listWellKnownCas: wellKnownCas,
  listNetworkJWTs: listNetworkJwts,
  listControllers,
};

export const discoveryHandlers = {
  client: { ...shared, listProtocols } satisfies HandlerMap,
  management: shared,
};

