/**
 * The five config types every fresh store has (reference model-and-policies §5.4), with fixed ids so that
 * tunnelers and SDKs find them. The schemas are this project's own, written from the documented shapes
 * (draft-07, the dialect configs are checked with).
 */

const PORT = { type: 'integer', minimum: 0, maximum: 65535 } as const;
const DURATION = { type: 'string', pattern: '^[0-9]+(h|m|s|ms)$' } as const;
const PROTOCOL = { type: 'string', enum: ['tcp', 'udp'] } as const;
/** An address a tunneler intercepts or a host forwards to: host name, IP, CIDR or `*.` wildcard. */
const ADDRESS = { type: 'string', minLength: 1 } as const;
const ADDRESS_LIST = { type: 'array', items: ADDRESS, minItems: 1, uniqueItems: true } as const;
const PORT_RANGE = { type: 'object', additionalProperties: false, required: ['low', 'high'], properties: { low: PORT, high: PORT } } as const;
const PORT_RANGES = { type: 'array', items: PORT_RANGE, minItems: 1, uniqueItems: true } as const;

const ACTION = {
  type: 'object',
  additionalProperties: false,
  required: ['trigger', 'action'],
  properties: {
    trigger: { type: 'string', enum: ['fail', 'pass', 'change'] },
    consecutiveEvents: { type: 'integer', minimum: 0, maximum: 65535 },
    duration: DURATION,
    action: { type: 'string', pattern: '^(mark (un)?healthy|(increase|decrease) cost [0-9]+|send event)$' },
  },
} as const;
const ACTIONS = { type: 'array', items: ACTION, minItems: 1, maxItems: 20 } as const;
const PORT_CHECKS = {
  type: 'array',
  items: { type: 'object', additionalProperties: false, required: ['interval', 'timeout', 'address'], properties: { interval: DURATION, timeout: DURATION, address: ADDRESS, actions: ACTIONS } },
} as const;
const HTTP_CHECKS = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['url', 'interval', 'timeout'],
    properties: {
      url: { type: 'string', minLength: 1 },
      method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH'] },
      body: { type: 'string' },
      expectStatus: { type: 'integer', minimum: 100, maximum: 599 },
      expectInBody: { type: 'string' },
      interval: DURATION,
      timeout: DURATION,
      actions: ACTIONS,
    },
  },
} as const;

const LISTEN_OPTIONS = {
  type: 'object',
  additionalProperties: false,
  properties: {
    bindUsingEdgeIdentity: { type: 'boolean' },
    connectTimeout: DURATION,
    connectTimeoutSeconds: { type: 'integer', minimum: 0 },
    cost: PORT,
    identity: { type: 'string' },
    maxConnections: { type: 'integer', minimum: 1 },
    precedence: { type: 'string', enum: ['default', 'required', 'failed'] },
  },
} as const;
const TRANSLATION = {
  type: 'object',
  additionalProperties: false,
  required: ['from', 'to', 'prefixLength'],
  properties: { from: { type: 'string', minLength: 1 }, to: { type: 'string', minLength: 1 }, prefixLength: { type: 'integer', minimum: 0, maximum: 128 } },
} as const;

/** One hosted terminator (host.v1, and each entry of host.v2): each of protocol/address/port given or forwarded. */
const HOST_TERMINATOR = {
  type: 'object',
  additionalProperties: false,
  properties: {
    protocol: PROTOCOL,
    forwardProtocol: { type: 'boolean' },
    allowedProtocols: { type: 'array', items: PROTOCOL, minItems: 1, uniqueItems: true },
    address: ADDRESS,
    forwardAddress: { type: 'boolean' },
    allowedAddresses: ADDRESS_LIST,
    port: PORT,
    forwardPort: { type: 'boolean' },
    allowedPortRanges: PORT_RANGES,
    allowedSourceAddresses: ADDRESS_LIST,
    forwardAddressTranslations: { type: 'array', items: TRANSLATION },
    listenOptions: LISTEN_OPTIONS,
    proxy: { type: 'object', additionalProperties: false, required: ['type', 'address'], properties: { type: { type: 'string', enum: ['http'] }, address: ADDRESS } },
    portChecks: PORT_CHECKS,
    httpChecks: HTTP_CHECKS,
  },
  allOf: [
    { oneOf: [{ required: ['protocol'], not: { required: ['forwardProtocol'] } }, { required: ['forwardProtocol', 'allowedProtocols'], properties: { forwardProtocol: { const: true } }, not: { required: ['protocol'] } }] },
    { oneOf: [{ required: ['address'], not: { required: ['forwardAddress'] } }, { required: ['forwardAddress', 'allowedAddresses'], properties: { forwardAddress: { const: true } }, not: { required: ['address'] } }] },
    { oneOf: [{ required: ['port'], not: { required: ['forwardPort'] } }, { required: ['forwardPort', 'allowedPortRanges'], properties: { forwardPort: { const: true } }, not: { required: ['port'] } }] },
  ],
} as const;

export const BUILT_IN_CONFIG_TYPES: readonly { id: string; name: string; schema: Record<string, unknown> }[] = [
  {
    id: 'f2dd2df0-9c04-4b84-a91e-71437ac229f1',
    name: 'ziti-tunneler-client.v1',
    schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', additionalProperties: false, required: ['hostname', 'port'], properties: { hostname: { type: 'string' }, port: PORT } },
  },
  {
    id: 'cea49285-6c07-42cf-9f52-09a9b115c783',
    name: 'ziti-tunneler-server.v1',
    schema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      required: ['hostname', 'port'],
      properties: { hostname: { type: 'string' }, port: PORT, protocol: { type: ['string', 'null'], enum: ['tcp', 'udp', null] }, portChecks: PORT_CHECKS, httpChecks: HTTP_CHECKS },
    },
  },
  {
    id: 'g7cIWbcGg',
    name: 'intercept.v1',
    schema: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      required: ['protocols', 'addresses', 'portRanges'],
      properties: {
        protocols: { type: 'array', items: PROTOCOL, minItems: 1, uniqueItems: true },
        addresses: ADDRESS_LIST,
        portRanges: PORT_RANGES,
        dialOptions: { type: 'object', additionalProperties: false, properties: { identity: { type: 'string' }, connectTimeoutSeconds: { type: 'integer', minimum: 0 } } },
        sourceIp: { type: 'string' },
        allowedSourceAddresses: ADDRESS_LIST,
      },
    },
  },
  { id: 'NH5p4FpGR', name: 'host.v1', schema: { $schema: 'http://json-schema.org/draft-07/schema#', ...HOST_TERMINATOR, type: 'object' } },
  {
    id: 'host.v2',
    name: 'host.v2',
    schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', additionalProperties: false, required: ['terminators'], properties: { terminators: { type: 'array', items: HOST_TERMINATOR, minItems: 1 } } },
  },
];
