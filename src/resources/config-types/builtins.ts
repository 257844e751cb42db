/**
 * The five config types every fresh store has (reference model-and-policies §5.4), with fixed ids so that
 * tunnelers and SDKs find them. The schemas accept what the controller's accept and have the controller's
 * shape, which clients read as well as validate with: named `definitions` referred to with `$ref`, every
 * list an `allOf` of the non-empty set and its items (the Admin Console's config editor leaves an optional
 * list out only when it has no `type` of its own), and host.v1's three "given or forwarded" choices as
 * `if`/`then`/`else`. Draft-07, the dialect configs are checked with.
 */

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/definitions/${name}` });
/** A non-empty list of distinct items. */
const setOf = (items: string, description?: string): Schema => ({ allOf: [ref('inhabitedSet'), { items: ref(items) }], ...(description ? { description } : {}) });
const ADDRESS: Schema = { type: 'string', format: 'idn-hostname', not: { pattern: '^$' } };

/** Every named piece the documents below use; each document carries those it refers to (`withDefinitions`). */
const DEFINITIONS: Record<string, Schema> = {
  inhabitedSet: { type: 'array', minItems: 1, uniqueItems: true },
  portNumber: { type: 'integer', minimum: 0, maximum: 65535 },
  portRange: { type: 'object', additionalProperties: false, required: ['low', 'high'], properties: { low: ref('portNumber'), high: ref('portNumber') } },
  protocolName: { type: 'string', enum: ['tcp', 'udp'] },
  // Host names, IPs, CIDRs and `*.` wildcards alike: the format is checked leniently, as a label.
  listenAddress: { ...ADDRESS, description: 'A host name, IP address, CIDR or *. wildcard' },
  dialAddress: { ...ADDRESS, description: 'A host name or IP address' },
  timeoutSeconds: { type: 'integer', minimum: 0, maximum: 2147483647 },
  duration: { type: 'string', pattern: '[0-9]+(h|m|s|ms)' },
  method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH'] },
  action: {
    type: 'object',
    additionalProperties: false,
    required: ['trigger', 'action'],
    properties: {
      trigger: { type: 'string', enum: ['fail', 'pass', 'change'] },
      consecutiveEvents: { type: 'integer', minimum: 0, maximum: 65535 },
      duration: ref('duration'),
      action: { type: 'string', pattern: '(mark (un)?healthy|increase cost [0-9]+|decrease cost [0-9]+|send event)' },
    },
  },
  actionList: { type: 'array', items: ref('action'), minItems: 1, maxItems: 20 },
  portCheck: {
    type: 'object',
    additionalProperties: false,
    required: ['interval', 'timeout', 'address'],
    properties: { interval: ref('duration'), timeout: ref('duration'), address: { type: 'string' }, actions: ref('actionList') },
  },
  portCheckList: { type: 'array', items: ref('portCheck') },
  httpCheck: {
    type: 'object',
    additionalProperties: false,
    required: ['interval', 'timeout', 'url'],
    properties: {
      url: { type: 'string' },
      method: ref('method'),
      body: { type: 'string' },
      expectStatus: { type: 'integer', minimum: 100, maximum: 599 },
      expectInBody: { type: 'string' },
      interval: ref('duration'),
      timeout: ref('duration'),
      actions: ref('actionList'),
    },
  },
  httpCheckList: { type: 'array', items: ref('httpCheck') },
  ipv4AddressTranslation: {
    type: 'object',
    additionalProperties: false,
    properties: { from: { type: 'string', format: 'ipv4' }, to: { type: 'string', format: 'ipv4' }, prefixLength: { type: 'integer', minimum: 0, maximum: 32 } },
  },
  ipv6AddressTranslation: {
    type: 'object',
    additionalProperties: false,
    properties: { from: { type: 'string', format: 'ipv6' }, to: { type: 'string', format: 'ipv6' }, prefixLength: { type: 'integer', minimum: 0, maximum: 128 } },
  },
  addressTranslation: { oneOf: [ref('ipv4AddressTranslation'), ref('ipv6AddressTranslation')] },
  proxyType: { type: 'string', enum: ['http'] },
  proxyConfiguration: { type: 'object', required: ['type', 'address'], properties: { type: ref('proxyType'), address: { type: 'string', description: 'host:port' } } },
};

/** Each of protocol, address and port: given, or forwarded from the intercepted connection within an allowed set. */
const givenOrForwarded = (field: string, forward: string, allowed: string): Schema => ({
  if: { required: [forward], properties: { [forward]: { const: true } } },
  then: { required: [allowed] },
  else: { required: [field] },
});

/** One hosted terminator: host.v1 itself, and each entry of host.v2. */
const HOST_TERMINATOR: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    protocol: ref('protocolName'),
    forwardProtocol: { type: 'boolean', enum: [true], description: 'Dial the intercepted protocol (instead of protocol)' },
    allowedProtocols: setOf('protocolName', 'The protocols a forwarded protocol may be'),
    address: ref('dialAddress'),
    forwardAddress: { type: 'boolean', enum: [true], description: 'Dial the intercepted address (instead of address)' },
    allowedAddresses: setOf('listenAddress', 'The addresses a forwarded address may be'),
    port: ref('portNumber'),
    forwardPort: { type: 'boolean', enum: [true], description: 'Dial the intercepted port (instead of port)' },
    allowedPortRanges: setOf('portRange', 'The ports a forwarded port may be'),
    allowedSourceAddresses: setOf('listenAddress', 'Source addresses the hosting tunneler routes back to the client'),
    forwardAddressTranslations: setOf('addressTranslation', 'Translations applied to forwarded addresses'),
    listenOptions: {
      type: 'object',
      additionalProperties: false,
      properties: {
        bindUsingEdgeIdentity: { type: 'boolean' },
        connectTimeout: ref('duration'),
        connectTimeoutSeconds: { ...ref('timeoutSeconds'), deprecated: true },
        cost: { type: 'integer', minimum: 0, maximum: 65535 },
        identity: { type: 'string' },
        maxConnections: { type: 'integer', minimum: 1 },
        precedence: { type: 'string', enum: ['default', 'required', 'failed'] },
      },
    },
    proxy: ref('proxyConfiguration'),
    portChecks: ref('portCheckList'),
    httpChecks: ref('httpCheckList'),
  },
  allOf: [givenOrForwarded('protocol', 'forwardProtocol', 'allowedProtocols'), givenOrForwarded('address', 'forwardAddress', 'allowedAddresses'), givenOrForwarded('port', 'forwardPort', 'allowedPortRanges')],
};

/** The document with the `definitions` it refers to, directly or through another definition. */
function withDefinitions(document: Schema, local: Record<string, Schema> = {}): Schema {
  const all = { ...DEFINITIONS, ...local };
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === '$ref' && typeof inner === 'string') {
          const name = inner.slice('#/definitions/'.length);
          if (!used.has(name)) {
            used.add(name);
            visit(all[name]);
          }
        } else visit(inner);
      }
    }
  };
  visit(document);
  const definitions = Object.fromEntries([...used].sort().map((name) => [name, all[name]]));
  return { ...document, definitions };
}

export const BUILT_IN_CONFIG_TYPES: readonly { id: string; name: string; schema: Schema }[] = [
  {
    id: 'f2dd2df0-9c04-4b84-a91e-71437ac229f1',
    name: 'ziti-tunneler-client.v1',
    schema: {
      $id: 'http://edge.openziti.org/schemas/ziti-tunneler-client.v1.config.json',
      type: 'object',
      additionalProperties: false,
      required: ['hostname', 'port'],
      properties: { hostname: { type: 'string' }, port: { type: 'integer', minimum: 0, maximum: 65535 } },
    },
  },
  {
    id: 'cea49285-6c07-42cf-9f52-09a9b115c783',
    name: 'ziti-tunneler-server.v1',
    schema: withDefinitions(
      {
        $id: 'http://edge.openziti.org/schemas/ziti-tunneler-server.v1.config.json',
        type: 'object',
        additionalProperties: false,
        required: ['hostname', 'port'],
        properties: {
          hostname: { type: 'string' },
          port: { type: 'integer', minimum: 0, maximum: 65535 },
          protocol: { type: ['string', 'null'], enum: ['tcp', 'udp'] },
          portChecks: ref('portCheckList'),
          httpChecks: ref('httpCheckList'),
        },
      },
      // The older health-check actions: no `change` trigger, no `send event`.
      {
        action: {
          type: 'object',
          additionalProperties: false,
          required: ['trigger', 'action'],
          properties: {
            trigger: { type: 'string', enum: ['fail', 'pass'] },
            consecutiveEvents: { type: 'integer', minimum: 0, maximum: 65535 },
            duration: ref('duration'),
            action: { type: 'string', pattern: '(mark (un)?healthy|increase cost [0-9]+|decrease cost [0-9]+)' },
          },
        },
      },
    ),
  },
  {
    id: 'g7cIWbcGg',
    name: 'intercept.v1',
    schema: withDefinitions({
      $id: 'http://edge.openziti.org/schemas/intercept.v1.config.json',
      type: 'object',
      additionalProperties: false,
      required: ['protocols', 'addresses', 'portRanges'],
      properties: {
        protocols: setOf('protocolName'),
        addresses: setOf('listenAddress'),
        portRanges: setOf('portRange'),
        dialOptions: { type: 'object', additionalProperties: false, properties: { identity: { type: 'string' }, connectTimeoutSeconds: ref('timeoutSeconds') } },
        sourceIp: { type: 'string', description: 'The source address (and optional :port) the hosting tunneler dials from' },
        allowedSourceAddresses: setOf('listenAddress', 'Source addresses that are intercepted (all when absent)'),
      },
    }),
  },
  { id: 'NH5p4FpGR', name: 'host.v1', schema: withDefinitions({ $id: 'http://ziti-edge.netfoundry.io/schemas/host.v1.schema.json', ...HOST_TERMINATOR }) },
  {
    id: 'host.v2',
    name: 'host.v2',
    schema: withDefinitions(
      {
        $id: 'http://ziti-edge.netfoundry.io/schemas/host.v2.schema.json',
        type: 'object',
        additionalProperties: false,
        required: ['terminators'],
        properties: { terminators: ref('terminatorList') },
      },
      { terminator: HOST_TERMINATOR, terminatorList: { type: 'array', items: ref('terminator'), minItems: 1 } },
    ),
  },
];

/**
 * SHA-256 of the stored text (`JSON.stringify`) of schemas earlier releases of this project seeded, by
 * type id: a start replaces such a schema with the current one, unless an admin has changed it since.
 */
export const SUPERSEDED_BUILT_IN_SCHEMAS: Readonly<Record<string, readonly string[]>> = {
  'f2dd2df0-9c04-4b84-a91e-71437ac229f1': ['4df144b839504fbb48644130f800e7e9e338e98d691aa69a7307d21d0014bc0d'],
  'cea49285-6c07-42cf-9f52-09a9b115c783': ['b1a6e3a909b64ff4e847eb4ee6f4103db76bd31cda27890f2ae35f59f1e0a5da'],
  g7cIWbcGg: ['4b4d7100fa70de175304e4cc24076514568b2cda26f7f57cd56a9ce09e3d853a'],
  NH5p4FpGR: ['bacb2c4c7db02ef59584094e530e3ceaf39e3cb92071b2d63edd16bbba4cff07'],
  'host.v2': ['4cdf8b1e3f3d52a944f5e90c4c7ee451e7ca4a4ebde67297fa7c35f494a002bd'],
};
