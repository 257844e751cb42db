/**
 * Who may call an operation (the rule is in access.ts): `anonymous`, `partial` (any valid API session,
 * even with MFA outstanding), `authenticated` (fully authenticated) or `admin`.
 */
export type Access = 'anonymous' | 'partial' | 'authenticated' | 'admin';
export type ApiName = 'client' | 'management';

/** One parameter of a spec operation, as the generator extracts it. */
export interface ParamSpec {
  name: string;
  in: 'query' | 'path' | 'header' | 'body';
  type?: string;
  format?: string;
  required?: boolean;
  enum?: unknown[];
  /** A repeatable query parameter (collectionFormat multi). */
  array?: boolean;
  /** Body parameters: a definition name, `$string` for a raw text body, or `$array:<definition>`. */
  schema?: string;
}

/** One operation of a spec, as generated into src/generated/<api>-operations.ts. */
export interface OperationSpec {
  operationId: string;
  method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';
  /** The spec path, e.g. `/identities/{id}`. */
  path: string;
  /** The spec declares no security requirement. */
  anonymous: boolean;
  /** Who may call it: the project's access rule (src/http/access.ts), applied by the generator. */
  access: Access;
  consumes?: string[];
  produces?: string[];
  params: ParamSpec[];
  /** Status code -> response definition name (or a primitive type, or null for no body). */
  responses: Record<string, string | null>;
}
