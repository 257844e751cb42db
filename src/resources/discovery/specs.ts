import { operations as clientOperations } from '../../generated/client-operations.js';
import { operations as managementOperations } from '../../generated/management-operations.js';
import { CLIENT_BASE, MANAGEMENT_BASE } from '../../http/paths.js';
import type { OperationSpec } from '../../http/operation.js';
import { links } from '../../crud/render.js';
import { iso } from '../../lib/time.js';
import { toYaml } from '../../lib/yaml.js';

/** When this process first served its API descriptions; the specs' createdAt/updatedAt. Set lazily: Workers have no clock in global scope. */
let loadedAt: string | undefined;

export const SPEC_IDS = ['edge-client', 'edge-management'] as const;
export type SpecId = (typeof SPEC_IDS)[number];

export function specDetail(id: SpecId) {
  loadedAt ??= iso(Date.now());
  return {
    id,
    name: id,
    _links: links(`./specs/${id}`, { spec: 'spec' }),
    createdAt: loadedAt,
    updatedAt: loadedAt,
    tags: {},
  };
}

const documents = new Map<SpecId, ReturnType<typeof describe>>();
const texts = new Map<string, string>();

/**
 * The project's own description of an API (Swagger 2.0), built from the generated operation tables: the
 * operations this controller routes, with their parameters and response schema names. As JSON text or
 * as YAML block text (`src/lib/yaml.ts`) of the same document, each made once per process on first use.
 */
export function specBody(id: SpecId, format: 'json' | 'yaml'): string {
  const key = `${id} ${format}`;
  let text = texts.get(key);
  if (text === undefined) {
    let document = documents.get(id);
    if (!document) {
      const client = id === 'edge-client';
      document = describe(client ? 'Ziti Edge Client' : 'Ziti Edge Management', client ? CLIENT_BASE : MANAGEMENT_BASE, client ? clientOperations : managementOperations);
      documents.set(id, document);
    }
    text = format === 'json' ? JSON.stringify(document) : toYaml(document);
    texts.set(key, text);
  }
  return text;
}

function describe(title: string, basePath: string, operations: readonly OperationSpec[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const responses: Record<string, unknown> = {};
    for (const [status, schema] of Object.entries(op.responses)) {
      responses[status] = { description: '', ...(schema && /^[a-z]/.test(schema) && !['string', 'object', 'array'].includes(schema) ? { schema: { $ref: `#/definitions/${schema}` } } : {}) };
    }
    (paths[op.path] ??= {})[op.method.toLowerCase()] = {
      operationId: op.operationId,
      ...(op.consumes ? { consumes: op.consumes } : {}),
      ...(op.produces ? { produces: op.produces } : {}),
      security: op.anonymous ? [] : [{ ztSession: [] }],
      parameters: op.params.map((p) =>
        p.in === 'body' ? { name: p.name, in: 'body', required: !!p.required, schema: p.schema?.startsWith('$') ? { type: 'string' } : { $ref: `#/definitions/${p.schema}` } } : { name: p.name, in: p.in, type: p.type, required: !!p.required, ...(p.enum ? { enum: p.enum } : {}) },
      ),
      responses,
    };
  }
  return {
    swagger: '2.0',
    info: { title, version: '0.26.45' },
    basePath,
    consumes: ['application/json'],
    produces: ['application/json'],
    schemes: ['https'],
    securityDefinitions: { ztSession: { type: 'apiKey', name: 'zt-session', in: 'header' } },
    paths,
  };
}
