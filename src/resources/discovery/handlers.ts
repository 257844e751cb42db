import { controllerId } from '../controller-settings/service.js';
import { links } from '../../crud/render.js';
import type { Deps } from '../../deps.js';
import { messageError } from '../../errors.js';
import { handlers, type ClientOperations, type SharedOperations } from '../../http/handler.js';
import { CLIENT_BASE, MANAGEMENT_BASE } from '../../http/paths.js';
import { iso } from '../../lib/time.js';
import { networkJwt } from '../../pki/network-jwt.js';
import { SPEC_IDS, specBody, specDetail, type SpecId } from './specs.js';
import { ENUMERATED_CAPABILITIES, versionDocument } from './version.js';

/** When this controller (process or isolate) started serving; set on first use, as Workers have no clock in global scope. */
let startedAt: number | undefined;

function specId(id: string): SpecId {
  if (!(SPEC_IDS as readonly string[]).includes(id)) throw messageError('NOT_FOUND', `spec with id ${id} not found`);
  return id as SpecId;
}

/** The network JWT is signed once per process and served identically afterwards. */
const networkJwtCache = new WeakMap<Deps, Promise<string>>();
function cachedNetworkJwt(deps: Deps): Promise<string> {
  let token = networkJwtCache.get(deps);
  if (!token) {
    const signing = networkJwt(deps.pki, deps.config.apiOrigin);
    networkJwtCache.set(deps, signing);
    signing.catch(() => networkJwtCache.delete(deps));
    token = signing;
  }
  return token;
}

/** This controller, the only member of its (single-node) cluster, with its API addresses. */
function controllerRecord(deps: Deps) {
  const since = (startedAt ??= deps.now());
  const id = controllerId(deps);
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

/** The YAML media types a client may ask a spec body for; it is answered as `text/yaml`. */
const YAML_TYPES = new Set(['text/yaml', 'application/x-yaml', 'application/yaml', 'text/x-yaml']);

/**
 * Whether an `Accept` header asks for YAML: a YAML type is named with q > 0 and `application/json` is not
 * named with a higher q. Anything else (no header, wildcards only, JSON) is answered with JSON, the default.
 */
function wantsYaml(accept: string | undefined): boolean {
  if (!accept) return false;
  let yaml = 0;
  let json = 0;
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isFinite(weight)) continue;
    if (YAML_TYPES.has(type)) yaml = Math.max(yaml, weight);
    else if (type === 'application/json') json = Math.max(json, weight);
  }
  return yaml > 0 && yaml >= json;
}

/**
 * An API description as the controller writes it: the raw document, no envelope, JSON or YAML. The
 * document is this project's own (docs/adr/0001-controller-quirks.md, "Spec bodies").
 */
export function specDocument(id: SpecId, format: 'json' | 'yaml', headers: Record<string, string> = {}): Response {
  const type = format === 'yaml' ? 'text/yaml' : 'application/json';
  return new Response(specBody(id, format), { status: 200, headers: { 'content-type': type, ...headers } });
}

const CONTROLLER_FIELDS = ['id', 'name', 'ctrlAddress', 'fingerprint', 'isOnline', 'lastJoinedAt'];

/** Discovery and informational operations, the same on both APIs (anonymous unless the spec says otherwise). */
const shared = handlers<SharedOperations>()({
  listRoot: ({ svc, reply }) => reply.ok(versionDocument(svc.deps.config)),
  listVersion: ({ svc, reply }) => reply.ok(versionDocument(svc.deps.config)),
  listEnumeratedCapabilities: ({ reply }) => reply.ok(ENUMERATED_CAPABILITIES),
  listSpecs: ({ reply }) => reply.ok(SPEC_IDS.map(specDetail)),
  detailSpec: ({ params, reply }) => reply.ok(specDetail(specId(params.id))),
  /** The raw document (not in the envelope the specification declares), negotiated by `Accept` as the controller does. */
  detailSpecBody: ({ params, requestHeader, reply }) => reply.raw(specDocument(specId(params.id), wantsYaml(requestHeader('accept')) ? 'yaml' : 'json', { vary: 'Accept' })),
  /** The trust bundle as a base64 certs-only PKCS#7, which SDKs fetch anonymously before enrolling. */
  listWellKnownCas: async ({ svc, reply }) =>
    reply.raw(new Response(await svc.deps.pki.cacertsPkcs7Base64(), { status: 200, headers: { 'content-type': 'application/pkcs7-mime', 'content-transfer-encoding': 'base64' } })),
  listNetworkJWTs: async ({ svc, reply }) => reply.ok([{ name: 'default', token: await cachedNetworkJwt(svc.deps) }]),
  listControllers: ({ svc, reply }) => reply.ok([controllerRecord(svc.deps)], { pagination: { limit: 10, offset: 0, totalCount: 1 }, filterableFields: CONTROLLER_FIELDS }),
});

export const discoveryHandlers = {
  client: {
    ...shared,
    ...handlers<ClientOperations>()({
      /** Listener addresses by protocol: the one scheme this controller serves the edge APIs on. */
      listProtocols: ({ svc, reply }) => reply.ok({ [svc.deps.config.apiScheme]: { address: svc.deps.config.apiOrigin } }),
    }),
  },
  management: shared,
};
