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

/** Translates one swagger schema into zod source text. */
function zodOf(schema: Json, defs: Json, discriminated: Map<string, string[]>): string {
  if (schema.$ref) {
    const name = refName(schema.$ref);
    return ident(name);
  }
  if (schema.allOf) {
    const parts = (schema.allOf as Json[]).map((s) => zodOf(s, defs, discriminated));
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
      out = 'z.string()';
      if (schema.format === 'date-time') out += '.regex(DATE_TIME, "must be a date-time")';
      if (schema.minLength !== undefined) out += `.min(${schema.minLength})`;
      if (schema.maxLength !== undefined) out += `.max(${schema.maxLength})`;
      break;
    }
    case 'integer':
    case 'number': {
      out = type === 'integer' ? 'z.number().int()' : 'z.number()';
      if (schema.enum) out = `z.union([${schema.enum.map((v: number) => `z.literal(${v})`).join(', ')}])`;
      if (schema.minimum !== undefined) out += `.min(${schema.minimum})`;
      if (schema.maximum !== undefined) out += `.max(${schema.maximum})`;
      break;
    }
    case 'boolean':
      out = 'z.boolean()';
      break;
    case 'array': {
      out = `z.array(${schema.items ? zodOf(schema.items, defs, discriminated) : 'z.unknown()'})`;
      if (schema.minItems !== undefined) out += `.min(${schema.minItems})`;
      if (schema.maxItems !== undefined) out += `.max(${schema.maxItems})`;
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
        if (!required.has(n)) f += '.nullish()';
        else if (nullable) f += '.nullable()';
        return `${key(n)}: ${f}`;
      });
      out = `z.object({ ${fields.join(', ')} })`;
      if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        out += `.catchall(${zodOf(schema.additionalProperties, defs, discriminated)})`;
      }
      break;
    }
    default:
      out = 'z.unknown()';
  }
  return out;
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

function generate(api: 'client' | 'management') {
  const spec = parse(readFileSync(join(specDir, `${api}.yml`), 'utf8')) as Json;
  const defs = spec.definitions as Json;

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

  const schemaLines: string[] = [];
  for (const name of Object.keys(defs).sort()) {
    const body = zodOf(defs[name], defs, discriminated);
    schemaLines.push(`export const ${ident(name)}: z.ZodType = /* @__PURE__ */ z.lazy(() => ${body});`);
  }
  const discriminatorLines = [...discriminated.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([base, subs]) => {
      const field = defs[base].discriminator as string;
      const entries = subs.sort().map((s) => {
        const value = (defs[s]['x-class'] as string | undefined) ?? s;
        return `[${JSON.stringify(value)}, ${ident(s)}]`;
      });
      return `  ${key(base)}: { field: ${JSON.stringify(field)}, subtypes: new Map<string, z.ZodType>([${entries.join(', ')}]) },`;
    });

  const schemaFile = [
    '// Generated by scripts/gen-api.ts from the OpenZiti edge-api specification. Do not edit.',
    "import { z } from 'zod';",
    '',
    'const DATE_TIME = /^\\d{4}-\\d{2}-\\d{2}[Tt ]\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?([Zz]|[+-]\\d{2}:?\\d{2})$/;',
    '',
    ...schemaLines,
    '',
    '/** Discriminated (polymorphic) definitions: the discriminator property and the schema per value. */',
    'export const discriminators: Record<string, { field: string; subtypes: Map<string, z.ZodType> }> = {',
    ...discriminatorLines,
    '};',
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
      ops.push({
        // DELETE /current-api-session has no operationId in the specification; name it like its siblings.
        operationId: op.operationId ?? synthesizedId(method, path),
        method: method.toUpperCase(),
        path,
        anonymous: security.length === 0,
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

  return { schemaFile, opsFile, count: ops.length };
}

mkdirSync(outDir, { recursive: true });
let drift = false;
for (const api of ['client', 'management'] as const) {
  const { schemaFile, opsFile, count } = generate(api);
  for (const [file, text] of [
    [`${api}-schemas.ts`, schemaFile],
    [`${api}-operations.ts`, opsFile],
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
