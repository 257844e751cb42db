/**
 * Generates the per-API operation tables and zod schemas in src/generated/ from the OpenZiti
 * edge-api specifications beside the project (../shared/openziti-api/{client,management}.yml).
 *
 * Only structure is generated: operation ids, methods, paths, security, parameters, body and
 * response schema names, and zod schemas for the definitions. No description text from the
 * specifications enters the project. `npm run gen:api -- --check` fails when the committed
 * output differs from what the specifications produce (CI runs it).
 */
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { accessFor } from '../src/http/access.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const specDir = process.env.OPENZITI_SPEC_DIR ?? resolve(root, '../shared/openziti-api');
const outDir = join(root, 'src/generated');
const check = process.argv.includes('--check');

type Json = Record<string, any>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

function refName(ref: string): string {
  const prefix = '#/definitions/';
  if (!ref.startsWith(prefix)) throw new Error(`unsupported $ref ${ref}`);
  return ref.slice(prefix.length);
}

function ident(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : `_${name.replace(/[^A-Za-z0-9_$]/g, '_')}`;
}

function key(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

/** `base` with `checks` attached in order, as zod/mini writes it (`.check(a, b)` is classic's `.a().b()`). */
function withChecks(base: string, checks: string[]): string {
  return checks.length ? `${base}.check(${checks.join(', ')})` : base;
}

/**
 * Translates one swagger schema into zod/mini source text (see ZOD_FILE). `request` reads a polymorphic
 * sub-type as the controller's generated binder does when it is a request body: the discriminator value
 * has already chosen the sub-type, so the base's enum does not apply to it (`ENDPOINT_STATE` posture
 * responses), and required names the definition does not declare are not checked
 * (`postureResponseProcessCreate.process`).
 *
 * Each construct is the one classic zod builds for the method it stands for, so parsing and issues are
 * the same: `.int()` is the `z.int()` check, a string's or array's `.min()`/`.max()` are
 * `z.minLength()`/`z.maxLength()`, a number's `z.gte()`/`z.lte()`, `.nullish()` is `z.nullish()`,
 * `.catchall(x)` is `z.catchall(o, x)`.
 */
function zodOf(schema: Json, defs: Json, discriminated: Map<string, string[]>, request = false): string {
  if (schema.$ref) {
    const name = refName(schema.$ref);
    const base = defs[name];
    if (request && base?.discriminator && base.properties?.[base.discriminator]) {
      return zodOf({ ...base, properties: { ...base.properties, [base.discriminator]: { type: 'string' } } }, defs, discriminated, request);
    }
    return ident(name);
  }
  if (schema.allOf) {
    const parts = (schema.allOf as Json[]).map((s) => zodOf(s, defs, discriminated, request));
    if (parts.length === 1) return parts[0];
    return parts.reduce((a, b) => `z.intersection(${a}, ${b})`);
  }
  let out: string;
  const type = schema.type ?? (schema.properties ? 'object' : undefined);
  switch (type) {
    case 'string': {
      if (schema.enum) {
        out = `z.enum(${JSON.stringify(schema.enum)})`;
        break;
      }
      const checks: string[] = [];
      if (schema.format === 'date-time') checks.push('z.regex(DATE_TIME, "must be a date-time")');
      if (schema.minLength !== undefined) checks.push(`z.minLength(${schema.minLength})`);
      if (schema.maxLength !== undefined) checks.push(`z.maxLength(${schema.maxLength})`);
      out = withChecks('z.string()', checks);
      break;
    }
    case 'integer':
    case 'number': {
      const checks: string[] = [];
      let base = 'z.number()';
      if (schema.enum) base = `z.union([${schema.enum.map((v: number) => `z.literal(${v})`).join(', ')}])`;
      else if (type === 'integer') checks.push('z.int()');
      if (schema.minimum !== undefined) checks.push(`z.gte(${schema.minimum})`);
      if (schema.maximum !== undefined) checks.push(`z.lte(${schema.maximum})`);
      out = withChecks(base, checks);
      break;
    }
    case 'boolean':
      out = 'z.boolean()';
      break;
    case 'array': {
      const checks: string[] = [];
      if (schema.minItems !== undefined) checks.push(`z.minLength(${schema.minItems})`);
      if (schema.maxItems !== undefined) checks.push(`z.maxLength(${schema.maxItems})`);
      out = withChecks(`z.array(${schema.items ? zodOf(schema.items, defs, discriminated) : 'z.unknown()'})`, checks);
      break;
    }
    case 'object': {
      const props = (schema.properties ?? {}) as Json;
      const required = new Set<string>(schema.required ?? []);
      const names = Object.keys(props);
      if (names.length === 0) {
        const ap = schema.additionalProperties;
        // A bare `type: object` is "any JSON value" in the specification (e.g. tag values).
        if (ap === undefined && type === 'object' && !schema.properties) out = 'z.unknown()';
        else out = ap && typeof ap === 'object' ? `z.record(z.string(), ${zodOf(ap, defs, discriminated)})` : 'z.record(z.string(), z.unknown())';
        break;
      }
      const fields = names.map((n) => {
        const p = props[n] as Json;
        let f = zodOf(p, defs, discriminated);
        const nullable = p['x-nullable'] === true;
        // Optional properties accept null too: PATCH bodies use null for "leave unchanged".
        if (!required.has(n)) f = `z.nullish(${f})`;
        else if (f === 'z.unknown()') f = 'PRESENT';
        else if (nullable) f = `z.nullable(${f})`;
        return `${key(n)}: ${f}`;
      });
      // Required names the definition does not declare (apiSessionDetail.cachedUpdatedAt): any value, but present.
      if (!request) for (const n of required) if (!(n in props)) fields.push(`${key(n)}: PRESENT`);
      out = `z.object({ ${fields.join(', ')} })`;
      if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        out = `z.catchall(${out}, ${zodOf(schema.additionalProperties, defs, discriminated)})`;
      }
      break;
    }
    default:
      out = 'z.unknown()';
  }
  return out;
}

/** The definitions a schema refers to, read as `zodOf` reads it (a request sub-type inlines its discriminated base). */
function refsOf(schema: Json | undefined, defs: Json, request = false, out = new Set<string>()): Set<string> {
  if (!schema || typeof schema !== 'object') return out;
  if (schema.$ref) {
    const name = refName(schema.$ref);
    const base = defs[name];
    if (request && base?.discriminator && base.properties?.[base.discriminator]) return refsOf({ ...base, discriminator: undefined }, defs, request, out);
    out.add(name);
    return out;
  }
  for (const part of (schema.allOf ?? []) as Json[]) refsOf(part, defs, request, out);
  for (const prop of Object.values((schema.properties ?? {}) as Json)) refsOf(prop as Json, defs, false, out);
  refsOf(schema.items, defs, false, out);
  if (typeof schema.additionalProperties === 'object') refsOf(schema.additionalProperties, defs, false, out);
  return out;
}

/** `identityDetail` -> `IdentityDetail`: the TypeScript type name of a definition. */
function typeName(name: string): string {
  const id = ident(name);
  return id[0] === '_' ? id : id[0].toUpperCase() + id.slice(1);
}

/**
 * Translates one swagger schema into a TypeScript type, with the same reading as `zodOf`: optional
 * properties are `?: T | null` (PATCH bodies use null for "leave unchanged"), required `x-nullable` ones
 * `T | null`, a bare `type: object` is any JSON value.
 */
function tsOf(schema: Json): string {
  if (schema.$ref) return typeName(refName(schema.$ref));
  if (schema.allOf) {
    const parts = (schema.allOf as Json[]).map((s) => tsOf(s));
    return parts.length === 1 ? parts[0] : parts.map((p) => `(${p})`).join(' & ');
  }
  const type = schema.type ?? (schema.properties ? 'object' : undefined);
  switch (type) {
    case 'string':
      return schema.enum ? (schema.enum as string[]).map((v) => JSON.stringify(v)).join(' | ') : 'string';
    case 'integer':
    case 'number':
      return schema.enum ? (schema.enum as number[]).map((v) => String(v)).join(' | ') : 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return `Array<${schema.items ? tsOf(schema.items) : 'unknown'}>`;
    case 'object': {
      const props = (schema.properties ?? {}) as Json;
      const required = new Set<string>(schema.required ?? []);
      const names = Object.keys(props);
      const ap = schema.additionalProperties;
      if (names.length === 0) {
        if (ap === undefined && !schema.properties) return 'unknown';
        return ap && typeof ap === 'object' ? `Record<string, ${tsOf(ap)}>` : 'Record<string, unknown>';
      }
      const undeclared = [...required].filter((n) => !(n in props)).map((n) => `${key(n)}: unknown`);
      const fields = names.map((n) => {
        const p = props[n] as Json;
        const t = tsOf(p);
        if (!required.has(n)) return `${key(n)}?: ${t} | null`;
        return p['x-nullable'] === true ? `${key(n)}: ${t} | null` : `${key(n)}: ${t}`;
      });
      fields.push(...undeclared);
      if (ap && typeof ap === 'object') fields.push('[key: string]: unknown');
      return `{ ${fields.join('; ')} }`;
    }
    default:
      return 'unknown';
  }
}

/** The TypeScript type of a non-body parameter's value, as `validateParams` hands it over. */
function paramTs(p: ParamOut): string {
  let t = p.type === 'integer' || p.type === 'number' ? 'number' : p.type === 'boolean' ? 'boolean' : 'string';
  if (p.enum && t === 'string') t = (p.enum as string[]).map((v) => JSON.stringify(v)).join(' | ');
  return p.array ? `Array<${t}>` : t;
}

function paramGroupTs(params: ParamOut[]): string {
  if (params.length === 0) return 'Record<never, never>';
  return `{ ${params.map((p) => `${key(p.name)}${p.required ? '' : '?'}: ${paramTs(p)}`).join('; ')} }`;
}

function bodyTs(params: ParamOut[]): string {
  const b = params.find((p) => p.in === 'body');
  if (!b || !b.schema || b.schema === '$string') return 'undefined';
  const t = b.schema.startsWith('$array:') ? `Array<${typeName(b.schema.slice(7))}>` : typeName(b.schema);
  return b.required ? t : `${t} | undefined`;
}

function responseTs(name: string | null): string {
  if (name === null) return 'null';
  if (name === 'string' || name === 'integer' || name === 'boolean' || name === 'number') return name === 'integer' ? 'number' : name;
  return typeName(name);
}

function synthesizedId(method: string, path: string): string {
  const words = path.split(/[/{}-]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1));
  return (method === 'delete' ? 'delete' : method) + words.join('');
}

interface ParamOut {
  name: string;
  in: 'query' | 'path' | 'header' | 'body';
  type?: string;
  format?: string;
  required?: boolean;
  enum?: unknown[];
  array?: boolean;
  schema?: string;
}

/**
 * Required reply properties that controller v1.6.2 renders `null` although the specification does not
 * mark them `x-nullable`, and that this project renders `null` too (docs/adr/0001-controller-quirks.md):
 * generated as if the specification said `x-nullable: true`, so the response types and the schemas the
 * tests check replies against admit the null. Per API, definition and property; a name the specification
 * does not declare fails the generation.
 */
const CONTROLLER_NULLS: Record<'client' | 'management', Record<string, string[]>> = {
  client: {
    // A signer without a browser login URL (external_jwt_signer_test.go).
    clientExternalJwtSignerDetail: ['externalAuthUrl'],
  },
  management: {
    // A config type created without a schema (config_type_test.go).
    configTypeDetail: ['schema'],
    // A transit router that has not enrolled (transit_router_test.go).
    routerDetail: ['fingerprint'],
    // A policy's empty role list: the controller's store keeps an empty list as none (the policy tests).
    servicePolicyDetail: ['identityRoles', 'serviceRoles', 'postureCheckRoles'],
    edgeRouterPolicyDetail: ['identityRoles', 'edgeRouterRoles'],
    serviceEdgeRouterPolicyDetail: ['serviceRoles', 'edgeRouterRoles'],
    // A signer's optional fields when unset; the fingerprint of a JWKS signer (external_jwt_signer_test.go).
    externalJwtSignerDetail: ['externalAuthUrl', 'kid', 'clientId', 'fingerprint', 'scopes'],
  },
};

/**
 * A property whose definition is `x-nullable` (`roleAttributes` → `attributes`) is nullable wherever it is
 * used, as go-swagger reads the specification (a pointer): marked on the property, which is what `zodOf`
 * and `tsOf` read.
 */
function inheritDefinitionNulls(defs: Json): void {
  const nullable = new Set(Object.keys(defs).filter((name) => (defs[name] as Json)['x-nullable'] === true));
  for (const def of Object.values(defs) as Json[]) {
    for (const part of [def, ...((def.allOf ?? []) as Json[])]) {
      for (const prop of Object.values((part.properties ?? {}) as Json) as Json[]) {
        if (prop.$ref && nullable.has(refName(prop.$ref))) prop['x-nullable'] = true;
      }
    }
  }
}

function markControllerNulls(api: 'client' | 'management', defs: Json): void {
  for (const [name, props] of Object.entries(CONTROLLER_NULLS[api])) {
    const def = defs[name] as Json | undefined;
    if (!def) throw new Error(`CONTROLLER_NULLS: ${api} has no definition ${name}`);
    const parts = [def, ...((def.allOf ?? []) as Json[])];
    for (const prop of props) {
      const schema = parts.map((part) => part.properties?.[prop] as Json | undefined).find((s) => s !== undefined);
      if (!schema) throw new Error(`CONTROLLER_NULLS: ${api} ${name} declares no property ${prop}`);
      schema['x-nullable'] = true;
    }
  }
}

function generate(api: 'client' | 'management') {
  const spec = parse(readFileSync(join(specDir, `${api}.yml`), 'utf8')) as Json;
  const defs = spec.definitions as Json;
  inheritDefinitionNulls(defs);
  markControllerNulls(api, defs);

  // Sub-types of a discriminated base: definitions whose allOf starts with the base.
  const discriminated = new Map<string, string[]>();
  for (const [name, def] of Object.entries(defs)) {
    if (!def.allOf) continue;
    for (const part of def.allOf as Json[]) {
      if (part.$ref && defs[refName(part.$ref)]?.discriminator) {
        const base = refName(part.$ref);
        discriminated.set(base, [...(discriminated.get(base) ?? []), name]);
      }
    }
  }

  // What the router validates: the definitions of body parameters and of the request-body sub-types of a
  // discriminated body, with what they refer to. Only these are in <api>-schemas.ts, which the runtime
  // imports; the other definitions (replies, which the tests check) are in <api>-response-schemas.ts.
  const bodyRoots = new Set<string>();
  for (const item of Object.values(spec.paths as Json)) {
    const ops = METHODS.map((m) => item[m] as Json | undefined).filter((op): op is Json => !!op);
    for (const p of [...(item.parameters ?? []), ...ops.flatMap((op) => op.parameters ?? [])] as Json[]) {
      const ref = p.in === 'body' ? (p.schema?.$ref ?? p.schema?.items?.$ref) : undefined;
      if (ref) bodyRoots.add(refName(ref));
    }
  }
  const bodyDiscriminated = [...discriminated.keys()].filter((base) => bodyRoots.has(base)).sort((a, b) => a.localeCompare(b));
  const requestNames = new Set<string>();
  const visit = (names: Iterable<string>): void => {
    for (const name of names) {
      if (requestNames.has(name)) continue;
      requestNames.add(name);
      visit(refsOf(defs[name], defs));
    }
  };
  visit(bodyRoots);
  for (const base of bodyDiscriminated) for (const sub of discriminated.get(base)!) visit(refsOf(defs[sub], defs, true));

  const schemaLines: string[] = [];
  const responseLines: string[] = [];
  const responseImports = new Set<string>();
  for (const name of Object.keys(defs).sort()) {
    const line = `export const ${ident(name)}: z.ZodMiniType = /* @__PURE__ */ z.lazy(() => ${zodOf(defs[name], defs, discriminated)});`;
    if (requestNames.has(name)) {
      schemaLines.push(line);
    } else {
      responseLines.push(line);
      for (const ref of refsOf(defs[name], defs)) if (requestNames.has(ref)) responseImports.add(ident(ref));
    }
  }
  // A sub-type as a request body (see zodOf): what the discriminator table hands the router.
  const requestLines: string[] = [];
  const discriminatorLines = bodyDiscriminated.map((base) => {
    const field = defs[base].discriminator as string;
    const entries = discriminated.get(base)!.sort().map((s) => {
      const value = (defs[s]['x-class'] as string | undefined) ?? s;
      requestLines.push(`const ${ident(s)}Body: z.ZodMiniType = /* @__PURE__ */ z.lazy(() => ${zodOf(defs[s], defs, discriminated, true)});`);
      return `[${JSON.stringify(value)}, ${ident(s)}Body]`;
    });
    return `  ${key(base)}: { field: ${JSON.stringify(field)}, subtypes: new Map<string, z.ZodMiniType>([${entries.join(', ')}]) },`;
  });

  const preamble = [
    'const DATE_TIME = /^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?([Zz]|[+-]\\d{2}:?\\d{2})$/;',
    '/** A required property of any value: it must be there (z.unknown() alone would accept it missing). */',
    'const PRESENT = z.unknown().check(z.refine((v) => v !== undefined, "is required"));',
  ];
  const schemaFile = [
    '// Generated by scripts/gen-api.ts from the OpenZiti edge-api specification. Do not edit.',
    '// The definitions request bodies use (and those they refer to): what the router validates.',
    "import * as z from './zod.js';",
    '',
    ...preamble,
    '',
    ...schemaLines,
    '',
    '/** Polymorphic sub-types as request bodies: the discriminator chose them, undeclared required names are not checked. */',
    ...requestLines,
    '',
    '/** Discriminated (polymorphic) request bodies: the discriminator property and the request-body schema per value. */',
    'export const discriminators: Record<string, { field: string; subtypes: Map<string, z.ZodMiniType> }> = {',
    ...discriminatorLines,
    '};',
    '',
  ].join('\n');
  const responseSchemaFile = [
    '// Generated by scripts/gen-api.ts from the OpenZiti edge-api specification. Do not edit.',
    `// The definitions no request body uses (replies): the tests check replies against them; the router never loads them.`,
    "import * as z from './zod.js';",
    ...(responseImports.size ? [`import { ${[...responseImports].sort().join(', ')} } from './${api}-schemas.js';`] : []),
    '',
    ...preamble,
    '',
    ...responseLines,
    '',
  ].join('\n');

  const ops: Json[] = [];
  for (const [path, item] of Object.entries(spec.paths as Json)) {
    const shared = (item.parameters ?? []) as Json[];
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const params: ParamOut[] = [];
      const seen = new Set<string>();
      for (const p of [...(op.parameters ?? []), ...shared] as Json[]) {
        const id = `${p.in}:${p.name}`;
        if (seen.has(id)) continue;
        seen.add(id);
        const out: ParamOut = { name: p.name, in: p.in };
        if (p.in === 'body') {
          out.schema = p.schema?.$ref ? refName(p.schema.$ref) : p.schema?.type === 'string' ? '$string' : undefined;
          if (!out.schema && p.schema?.type === 'array' && p.schema.items?.$ref) out.schema = `$array:${refName(p.schema.items.$ref)}`;
        } else {
          out.type = p.type === 'array' ? (p.items?.type ?? 'string') : p.type;
          if (p.type === 'array') out.array = true;
          if (p.format) out.format = p.format;
          if (p.enum) out.enum = p.enum;
        }
        if (p.required) out.required = true;
        params.push(out);
      }
      const security = op.security ?? spec.security ?? [];
      const responses: Record<string, string | null> = {};
      for (const [status, r] of Object.entries((op.responses ?? {}) as Json)) {
        const s = (r as Json).schema as Json | undefined;
        responses[status] = s?.$ref ? refName(s.$ref) : s?.type ?? null;
      }
      // DELETE /current-api-session has no operationId in the specification; name it like its siblings.
      const operationId = op.operationId ?? synthesizedId(method, path);
      const anonymous = security.length === 0;
      ops.push({
        operationId,
        method: method.toUpperCase(),
        path,
        anonymous,
        access: accessFor(api, { operationId, path, anonymous }),
        ...(op.consumes ? { consumes: op.consumes } : {}),
        ...(op.produces ? { produces: op.produces } : {}),
        params,
        responses,
      });
    }
  }
  ops.sort((a, b) => (a.path === b.path ? a.method.localeCompare(b.method) : a.path.localeCompare(b.path)));

  const opsFile = [
    '// Generated by scripts/gen-api.ts from the OpenZiti edge-api specification. Do not edit.',
    "import type { OperationSpec } from '../http/operation.js';",
    '',
    `export const basePath = ${JSON.stringify(spec.basePath)};`,
    `export const apiVersion = ${JSON.stringify(spec.info.version)};`,
    '',
    'export const operations: readonly OperationSpec[] = [',
    ...ops.map((o) => `  ${JSON.stringify(o)},`),
    '];',
    '',
  ].join('\n');

  const typeNames = new Map<string, string>();
  for (const name of Object.keys(defs)) {
    const t = typeName(name);
    if (typeNames.has(t)) throw new Error(`definitions ${typeNames.get(t)} and ${name} map to one type name ${t}`);
    typeNames.set(t, name);
  }
  const typeLines = Object.keys(defs)
    .sort()
    .map((name) => `export type ${typeName(name)} = ${tsOf(defs[name])};`);
  const opTypeLines = ops.map((o) => {
    const params = o.params as ParamOut[];
    const responses = Object.entries(o.responses as Record<string, string | null>)
      .map(([status, name]) => `${status}: ${responseTs(name)}`)
      .join('; ');
    return [
      `  ${key(o.operationId)}: {`,
      `    access: ${JSON.stringify(o.access)};`,
      `    path: ${paramGroupTs(params.filter((p) => p.in === 'path'))};`,
      `    query: ${paramGroupTs(params.filter((p) => p.in === 'query'))};`,
      `    headers: ${paramGroupTs(params.filter((p) => p.in === 'header'))};`,
      `    body: ${bodyTs(params)};`,
      `    responses: { ${responses} };`,
      '  };',
    ].join('\n');
  });
  const typesFile = [
    '// Generated by scripts/gen-api.ts from the OpenZiti edge-api specification. Do not edit.',
    '/* eslint-disable */',
    '',
    ...typeLines,
    '',
    '/** Every operation by operationId: who may call it, its typed input and its responses by status. */',
    `export interface ${api[0].toUpperCase()}${api.slice(1)}Operations {`,
    ...opTypeLines,
    '}',
    '',
  ].join('\n');

  return { schemaFile, responseSchemaFile, opsFile, typesFile, count: ops.length };
}

/**
 * The zod the schemas are built with: zod/mini (the schemas never use classic zod's methods, and its entry
 * brings the JSON-schema conversion into the Worker bundle), set up as the classic `zod` entry sets itself up
 * on first use: English issue messages (the `default` reasons of src/http/validate.ts quote them) and the
 * memoizer that gives containers cycle support. A setting made before this module runs is kept, as classic
 * zod keeps it.
 */
const ZOD_FILE = [
  '// Generated by scripts/gen-api.ts. Do not edit.',
  '// zod/mini, set up as the classic `zod` entry sets itself up: English issue messages and the memoizer.',
  "import { config, globalConfig, memoizer } from 'zod/v4/core';",
  "import en from 'zod/v4/locales/en.js';",
  '',
  'if (!globalConfig.localeError) config(en());',
  'if (!globalConfig.memoizer) config({ memoizer: memoizer() });',
  '',
  "export * from 'zod/mini';",
  '',
].join('\n');

mkdirSync(outDir, { recursive: true });
let drift = false;
for (const api of ['client', 'management'] as const) {
  const { schemaFile, responseSchemaFile, opsFile, typesFile, count } = generate(api);
  for (const [file, text] of [
    [`${api}-schemas.ts`, schemaFile],
    [`${api}-response-schemas.ts`, responseSchemaFile],
    [`${api}-operations.ts`, opsFile],
    [`${api}-types.ts`, typesFile],
    ...(api === 'client' ? ([['zod.ts', ZOD_FILE]] as const) : []),
  ] as const) {
    const target = join(outDir, file);
    if (check) {
      if (!existsSync(target) || readFileSync(target, 'utf8') !== text) {
        console.error(`src/generated/${file} is out of date; run npm run gen:api`);
        drift = true;
      }
    } else {
      writeFileSync(target, text);
    }
  }
  console.log(`${api}: ${count} operations`);
}
if (drift) process.exit(1);
