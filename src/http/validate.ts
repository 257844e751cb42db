import type { $ZodIssue } from 'zod/v4/core';
import { readCapped } from '../lib/streams.js';
import { ApiError, causeValue, SECRET_FIELDS } from '../errors.js';
import type { OperationSpec, ParamSpec } from './operation.js';
import type { Runtime } from '../deps.js';

export const MAX_BODY_BYTES = 1024 * 1024;

/** Query parameters as handlers get them: converted to the spec's types, repeatable ones as arrays. */
export type QueryValues = Record<string, unknown>;

function validationError(field: string, reason: string, value: unknown, status = 400): ApiError {
  return new ApiError('COULD_NOT_VALIDATE', { field, reason, value: causeValue(value) }, status);
}

/**
 * Checks the query, path and header parameters of an operation (types, enums, required) and returns the
 * declared query and header parameters converted to their types (integer and number → number, boolean →
 * boolean, repeatable → array). Undeclared query parameters are ignored, as the controller does.
 */
export function validateParams(
  op: OperationSpec,
  search: Pick<URLSearchParams, 'getAll'>,
  pathParams: Record<string, string>,
  header: (name: string) => string | undefined,
): { query: QueryValues; headers: Record<string, string> } {
  const query: QueryValues = {};
  const headers: Record<string, string> = {};
  for (const p of op.params) {
    if (p.in === 'body') continue;
    const values =
      p.in === 'query' ? search.getAll(p.name) : p.in === 'path' ? [pathParams[p.name]].filter((v) => v !== undefined) : [header(p.name)].filter((v): v is string => v !== undefined);
    if (values.length === 0) {
      if (p.required) throw validationError(p.name, `${p.name} in ${p.in} is required`, undefined);
      continue;
    }
    const checked = (p.array ? values : values.slice(0, 1)).map((value) => checkParamValue(p, value));
    if (p.in === 'query') query[p.name] = p.array ? checked : checked[0];
    else if (p.in === 'header') headers[p.name] = values[0];
  }
  return { query, headers };
}

/** A parameter value converted to its declared type; 400 when it is not of that type or not in its enum. */
function checkParamValue(p: ParamSpec, value: string): unknown {
  if (p.enum && !p.enum.includes(value)) {
    throw validationError(p.name, `${p.name} in ${p.in} should be one of [${p.enum.join(' ')}]`, value);
  }
  if (p.type === 'integer') {
    if (!/^-?\d{1,15}$/.test(value)) throw validationError(p.name, `${p.name} in ${p.in} must be of type integer: "string"`, value);
    return Number(value);
  }
  if (p.type === 'number') {
    if (value.trim() === '' || Number.isNaN(Number(value))) throw validationError(p.name, `${p.name} in ${p.in} must be of type number: "string"`, value);
    return Number(value);
  }
  if (p.type === 'boolean') {
    if (value !== 'true' && value !== 'false') throw validationError(p.name, `${p.name} in ${p.in} must be of type boolean: "string"`, value);
    return value === 'true';
  }
  return value;
}

const tooLarge = () => new ApiError('REQUEST_TOO_LARGE');

/** Reads a request body through the runtime (`Runtime.readBody`), refusing more than MAX_BODY_BYTES before buffering it all. */
export function readBodyCapped(runtime: Pick<Runtime, 'readBody'>, request: Request, env: unknown): Promise<Uint8Array> {
  if (runtime.readBody) return runtime.readBody(request, env, MAX_BODY_BYTES, tooLarge);
  return readCapped(request.body, request.headers.get('content-length'), MAX_BODY_BYTES, tooLarge);
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaType(contentType: string | null | undefined): string | undefined {
  const t = contentType?.split(';')[0].trim().toLowerCase();
  return t ? t : undefined;
}

/** JSON bodies nest at most this deep (the spec's deepest bodies nest a handful of levels). */
export const MAX_JSON_DEPTH = 64;

/**
 * Parses a JSON body. Invalid UTF-8, unparsable text and nesting deeper than MAX_JSON_DEPTH are 400
 * COULD_NOT_PARSE_BODY, with a message that quotes nothing of the body (a parser's message would).
 * The depth is measured before parsing, without recursion, so no body can exhaust the stack later.
 */
export function parseJsonBody(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new ApiError('COULD_NOT_PARSE_BODY', { code: 'UNHANDLED', message: 'the body is not valid UTF-8' });
  }
  const depth = nestingDepth(text, MAX_JSON_DEPTH);
  if (depth > MAX_JSON_DEPTH) throw new ApiError('COULD_NOT_PARSE_BODY', { code: 'UNHANDLED', message: `the body nests deeper than ${MAX_JSON_DEPTH} levels` });
  try {
    return JSON.parse(text);
  } catch (e) {
    const position = /position (\d+)/.exec((e as Error).message)?.[1];
    throw new ApiError('COULD_NOT_PARSE_BODY', { code: 'UNHANDLED', message: position ? `invalid JSON at position ${position}` : 'invalid JSON' });
  }
}

/** The deepest `[`/`{` nesting of JSON text (outside strings), stopping once it exceeds `limit`. */
function nestingDepth(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92 /* \\ */) i++;
      else if (ch === 34 /* " */) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 91 || ch === 123) {
      if (++depth > max) max = depth;
      if (max > limit) return max;
    } else if (ch === 93 || ch === 125) depth--;
  }
  return max;
}

type Issue = $ZodIssue;

function pathOf(issue: Issue, root: string): string {
  const parts = issue.path.map(String);
  const path = parts.length === 0 ? root : parts.join('.');
  // Keys come from the body: a field name is bounded like a cause value.
  return path.length > 128 ? path.slice(0, 128) + '...' : path;
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let v: unknown = input;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

/** Turns the first zod issue into the controller's field cause (`<field> in body is required`, ...). */
export function zodIssueToError(issue: Issue, input: unknown, root = 'body'): ApiError {
  const field = pathOf(issue, root);
  const value = valueAt(input, issue.path);
  let reason: string;
  switch (issue.code) {
    case 'invalid_type':
      reason = value === undefined ? `${field} in body is required` : `${field} in body must be of type ${issue.expected}: "${describe(value)}"`;
      break;
    case 'too_small':
      reason =
        issue.origin === 'string'
          ? `${field} in body should be at least ${issue.minimum} chars long`
          : issue.origin === 'array'
            ? `${field} in body should have at least ${issue.minimum} items`
            : `${field} in body should be greater than or equal to ${issue.minimum}`;
      break;
    case 'too_big':
      reason =
        issue.origin === 'string'
          ? `${field} in body should be at most ${issue.maximum} chars long`
          : issue.origin === 'array'
            ? `${field} in body should have at most ${issue.maximum} items`
            : `${field} in body should be less than or equal to ${issue.maximum}`;
      break;
    case 'invalid_value':
      reason = `${field} in body should be one of [${issue.values.map(String).join(' ')}]`;
      break;
    case 'invalid_format':
      reason = `${field} in body must be of type ${issue.format}`;
      break;
    default:
      reason = `${field} in body is invalid: ${issue.message}`;
  }
  // Never echo a secret back, not even an invalid one.
  const shown = SECRET_FIELDS.test(field) ? undefined : value;
  return new ApiError('COULD_NOT_VALIDATE', { field, reason, value: causeValue(shown) });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
