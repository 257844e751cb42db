import { Validator, type Schema } from '@cfworker/json-schema';

/** The first problem of a JSON value against a schema: where, what, and the offending value. */
export interface SchemaProblem {
  /** `(root)` for the value itself, `(root).port`, `(root).portRanges.0.low` below it. */
  path: string;
  message: string;
  value: unknown;
}

/** An empty schema (`{}`) accepts anything. */
export function isEmptySchema(schema: Record<string, unknown> | null | undefined): boolean {
  return !schema || Object.keys(schema).length === 0;
}

/**
 * Loads a schema as draft-07 (what config types use), without code generation, so it runs on Workers.
 * Throws when the validator cannot use it.
 */
export function jsonSchemaValidator(schema: Record<string, unknown>): Validator {
  const validator = new Validator(schema as Schema, '7', true);
  validator.validate({});
  return validator;
}

/**
 * Validates `value`; undefined when it is valid, else the most specific problem (the deepest location the
 * validator reports, so `port: 70000` names `(root).port`, not only "property port does not match").
 */
export function firstSchemaProblem(validator: Validator, value: unknown): SchemaProblem | undefined {
  const result = validator.validate(value);
  if (result.valid) return undefined;
  const errors = result.errors.filter((e) => e.keyword !== 'false');
  const error = errors[errors.length - 1] ?? result.errors[0];
  const segments = error.instanceLocation.replace(/^#\/?/, '').split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let at: unknown = value;
  for (const s of segments) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[s] : undefined;
  return { path: ['(root)', ...segments].join('.'), message: error.error, value: at };
}
