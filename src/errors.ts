/**
 * The single error catalogue: OpenZiti's error codes with their HTTP status and fixed message.
 * Handlers and services throw `ApiError`; the app's error handler renders the envelope.
 */

export const ERROR_CATALOGUE = {
  UNAUTHORIZED: [401, 'The request could not be completed. The session is not authorized or the credentials are invalid'],
  INVALID_AUTH: [401, 'The authentication request failed'],
  INVALID_AUTH_METHOD: [400, 'The supplied authentication method is not valid'],
  NOT_FOUND: [404, 'The resource requested was not found or is no longer available'],
  METHOD_NOT_ALLOWED: [405, 'The resource requested does not support this HTTP verb'],
  NOT_IMPLEMENTED: [501, 'The operation is not implemented by this controller'],
  UNHANDLED: [500, 'An unhandled error occurred'],
  COULD_NOT_VALIDATE: [400, 'The supplied request contains an invalid document or no valid accept content were available, see cause'],
  COULD_NOT_PARSE_BODY: [400, 'The body of the request could not be parsed'],
  COULD_NOT_READ_BODY: [500, 'The body of the request could not be read'],
  REQUEST_TOO_LARGE: [413, 'The body of the request is larger than the controller accepts'],
  // Transport-level refusals of the Node server, answered in the envelope (src/node.ts).
  HEADERS_TOO_LARGE: [431, 'The request line or headers are larger than the controller accepts'],
  MALFORMED_REQUEST: [400, 'The request could not be parsed as HTTP'],
  REQUEST_TIMEOUT: [408, 'The request was not received in time'],
  UNSUPPORTED_MEDIA: [415, 'No suitable accept media types were detected, supports: application/json'],
  INVALID_UUID: [400, 'The supplied UUID is invalid'],
  ENTITY_CAN_NOT_BE_DELETED: [400, 'The entity requested for delete can not be deleted'],
  ENTITY_CAN_NOT_BE_UPDATED: [400, 'The entity requested for update can not be updated'],
  CAN_NOT_DELETE_REFERENCED_ENTITY: [409, 'the entity cannot be deleted because it is referenced by another entity, see cause'],
  REFERENCED_ENTITY_NOT_FOUND: [400, 'REFERENCED_ENTITY_NOT_FOUND'],
  INVALID_FILTER: [400, 'The filter query supplied is invalid'],
  INVALID_PAGINATION: [400, 'The pagination properties provided are invalid'],
  INVALID_SORT_IDENTIFIER: [400, 'The sort order supplied is invalid'],
  ENROLLMENT_EXPIRED: [400, 'The window for this enrollment has expired'],
  INVALID_ENROLLMENT_TOKEN: [400, 'The supplied token is not valid'],
  INVALID_ENROLL_METHOD: [400, 'The supplied enrollment method is not valid'],
  MISSING_OR_INVALID_CSR: [400, 'The supplied enrollment request is missing or contains an invalid CSR'],
  COULD_NOT_PROCESS_CSR: [400, 'The supplied csr could not be processed'],
  ENROLLMENT_CA_NOT_VALID: [400, 'The CA tied to the supplied token is no longer valid'],
  ENROLLMENT_NO_VALID_CAS: [400, 'No CAs are valid for this request'],
  ENROLLMENT_EXISTS: [409, 'ENROLLMENT_EXISTS'],
  CERT_FAILED_VALIDATION: [400, 'certificate failed to validate against CA'],
  CERTIFICATE_FAILED_VALIDATION: [400, "The supplied certificate failed to validate against the CA's certificate chain"],
  CERT_IN_USE: [409, 'The certificate supplied is already associated with another identity'],
  MISSING_CERT_CLAIM: [400, 'The certificate is expected to contain and externalId, which was not found'],
  CA_ALREADY_VERIFIED: [409, 'CA has already been verified'],
  EXPECTED_PEM_CERTIFICATE: [400, "expected PEM block type 'CERTIFICATE'"],
  COULD_NOT_PARSE_DER_BLOCK: [400, "The certificate's DER block could not be parsed"],
  COULD_NOT_PARSE_PEM_BLOCK: [400, "The certificate's PEM block could not be parsed"],
  COULD_NOT_PARSE_x509_FROM_DER: [400, 'could not parse x509 from DER'],
  INVALID_COMMON_NAME: [400, 'The common name of the supplied certificate is invalid'],
  CERTIFICATE_IS_NOT_CA: [400, 'Leading certificate is not a CA'],
  INVALID_CERT_PEM: [400, 'the supplied certificate PEM is either invalid or contains the incorrect number of certificates'],
  INVALID_CLIENT_CERT: [400, 'The provided client certificate is invalid'],
  CAN_NOT_UPDATE_AUTHENTICATOR: [409, 'The authenticator cannot be updated in this fashion'],
  MAX_AUTHENTICATOR_METHODS_REACHED: [409, 'The identity already has the maximum authenticators of the specified method'],
  CAN_NOT_UPDATE_ROUTER: [409, 'The router was not added via the Edge API and cannot be updated'],
  MFA_EXISTS: [409, 'An MFA record already exists, try removing it'],
  MFA_INVALID_TOKEN: [400, 'An invalid token/code was provided'],
  MFA_NOT_ENROLLED: [409, 'The current identity is not enrolled in MFA'],
  FAILED_ER_REENROLLMENT: [500, 'the edge router failed to be re-enrolled, see cause'],
  NO_EDGE_ROUTERS_AVAILABLE: [400, 'No edge routers are assigned and online to handle the requested connection'],
  INVALID_POSTURE: [409, 'Posture response data is missing or wrong'],
  RATE_LIMITED: [429, 'The requested operation is rate limited and the rate limit has been exceeded. Please try again later'],
  // POST /database/snapshot on a store the controller cannot copy (remote libSQL): the cause says what the platform offers.
  SNAPSHOT_NOT_SUPPORTED: [409, 'The store cannot be snapshot by the controller, see cause'],
  SERVER_TOO_MANY_REQUESTS: [429, 'Too many requests to alter state have been issued. Please slow your request rate or try again later.'],
  TIMEOUT: [503, 'The requested operation took too much time to reply'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The `cause` object of an error envelope: a field error, a nested error, or a generic message/data pair. */
export interface ErrorCause {
  field?: string;
  reason?: string;
  value?: string;
  code?: string;
  message?: string;
  data?: unknown;
}

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly causeDetail?: ErrorCause,
    statusOverride?: number,
  ) {
    super(ERROR_CATALOGUE[code][1]);
    this.status = statusOverride ?? ERROR_CATALOGUE[code][0];
  }
}

/** Keys whose values are secrets wherever they appear in a submitted value: rendered as `<redacted>`. */
export const SECRET_FIELDS = /password|secret|token|code|csr|key/i;

/** A cause's `value` is at most this long (the rest is cut with `...`), and nests at most this deep. */
export const CAUSE_VALUE_MAX = 256;
const CAUSE_DEPTH_MAX = 4;

/**
 * Renders a submitted value the way the cause's `value` string expects it (`[a b]`, `map[k:v]`), bounded in
 * length and depth so that a huge or deeply nested body is never reflected back, and with the values of
 * secret-looking keys (`password`, `token`, ...) redacted at any depth.
 */
export function causeValue(value: unknown): string {
  let out = '';
  const write = (text: string) => {
    if (out.length <= CAUSE_VALUE_MAX) out += text;
  };
  const render = (v: unknown, depth: number): void => {
    if (out.length > CAUSE_VALUE_MAX) return;
    if (v === undefined || v === null) return write('<nil>');
    if (typeof v === 'string') return write(v.length > CAUSE_VALUE_MAX ? v.slice(0, CAUSE_VALUE_MAX + 1) : v);
    if (typeof v !== 'object') return write(String(v));
    if (depth >= CAUSE_DEPTH_MAX) return write('...');
    if (Array.isArray(v)) {
      write('[');
      for (let i = 0; i < v.length && out.length <= CAUSE_VALUE_MAX; i++) {
        if (i > 0) write(' ');
        render(v[i], depth + 1);
      }
      return write(']');
    }
    write('map[');
    let first = true;
    for (const k in v as Record<string, unknown>) {
      if (out.length > CAUSE_VALUE_MAX) break;
      if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
      if (!first) write(' ');
      first = false;
      write(`${k}:`);
      if (SECRET_FIELDS.test(k)) write('<redacted>');
      else render((v as Record<string, unknown>)[k], depth + 1);
    }
    write(']');
  };
  render(value, 0);
  return out.length > CAUSE_VALUE_MAX ? out.slice(0, CAUSE_VALUE_MAX) + '...' : out;
}

/** 400 COULD_NOT_VALIDATE with a field cause. Pass `value: undefined` only for secrets: it renders `<nil>`-free. */
export function fieldError(field: string, reason: string, value?: unknown, code: ErrorCode = 'COULD_NOT_VALIDATE'): ApiError {
  const cause: ErrorCause = { field, reason };
  if (arguments.length >= 3) cause.value = causeValue(value);
  return new ApiError(code, cause);
}

/** An error whose cause is a plain message (rendered as an UNHANDLED-coded cause, as the controller does). */
export function messageError(code: ErrorCode, message: string): ApiError {
  // Messages quote request text (ids, paths, filters): bounded, whoever built them.
  return new ApiError(code, { code: 'UNHANDLED', message: bounded(message, 512) });
}

export function notFound(entity: string, id: string): ApiError {
  return messageError('NOT_FOUND', `${entity} with id ${bounded(id)} not found`);
}

/** Text from the request (an id, a path) as an error message may quote it: at most 128 characters. */
export function bounded(text: string, max = 128): string {
  return text.length > max ? text.slice(0, max) + '...' : text;
}
