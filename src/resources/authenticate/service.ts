import { authMethods } from '../../auth/methods/index.js';
import { authLimiter } from '../../auth/rate-limit.js';
import { atomic } from '../../db/client.js';
import type { OpContext } from '../../http/handler.js';
import type { ApiSessionRow } from '../../http/session.js';
import { cuid, uuid } from '../../lib/ids.js';
import { toSet } from '../../lib/json.js';
import { insertApiSession, updateIdentityClientInfo } from './repo.js';

const ENV_FIELDS = ['arch', 'os', 'osRelease', 'osVersion', 'domain', 'hostname'] as const;
const SDK_FIELDS = ['appId', 'appVersion', 'branch', 'revision', 'type', 'version'] as const;

interface AuthenticateBody {
  configTypes?: string[] | null;
  envInfo?: Record<string, string | null> | null;
  sdkInfo?: Record<string, string | null> | null;
}

/** Missing sub-fields become empty strings; the object replaces the stored one as a whole. */
function normaliseInfo(info: Record<string, string | null> | null | undefined, fields: readonly string[]): string | undefined {
  if (!info) return undefined;
  return JSON.stringify(Object.fromEntries(fields.map((f) => [f, info[f] ?? ''])));
}

/**
 * Config types wanted in service listings. Entries are config-type ids or names; `all` collapses the
 * set to ["all"]. Names are kept as given until config types exist in the store, at which point they
 * are translated to ids and unknown entries dropped.
 */
function resolveConfigTypes(values: string[] | null | undefined): string[] {
  const set = toSet((values ?? []).filter((v) => typeof v === 'string' && v.length > 0));
  return set.includes('all') ? ['all'] : set;
}

function clientIp(ctx: OpContext): string {
  const h = ctx.c.req.header.bind(ctx.c.req);
  const forwarded = h('cf-connecting-ip') ?? h('x-forwarded-for')?.split(',')[0]?.trim() ?? h('x-real-ip');
  return (forwarded ?? '').replace(/^\[|\]$/g, '');
}

/** Authenticates with the requested method and creates the API session in one atomic write. */
export async function authenticate(ctx: OpContext<AuthenticateBody | undefined>) {
  const { deps } = ctx;
  const method = authMethods[ctx.query.method ?? ''];
  const result = await authLimiter(deps, deps.config.authConcurrencyLimit).run(() => method(ctx));
  const now = deps.now();
  const apiSession: ApiSessionRow = {
    id: cuid(),
    createdAt: now,
    updatedAt: now,
    tags: '{}',
    isSystem: false,
    token: uuid(),
    identityId: result.identity.id,
    authenticatorId: result.authenticatorId,
    ipAddress: clientIp(ctx),
    configTypes: JSON.stringify(resolveConfigTypes(ctx.body?.configTypes)),
    isMfaRequired: false,
    isMfaComplete: false,
    passedMfaAt: null,
    isCertExtendable: result.isCertExtendable,
    improperClientCertChain: result.improperClientCertChain,
    lastActivityAt: now,
  };
  const statements = [insertApiSession(deps.db, apiSession), ...result.onSuccess(deps)];
  const envInfo = normaliseInfo(ctx.body?.envInfo, ENV_FIELDS);
  const sdkInfo = normaliseInfo(ctx.body?.sdkInfo, SDK_FIELDS);
  const identity = result.identity;
  if ((envInfo !== undefined && envInfo !== identity.envInfo) || (sdkInfo !== undefined && sdkInfo !== identity.sdkInfo)) {
    statements.push(updateIdentityClientInfo(deps.db, identity.id, envInfo ?? identity.envInfo, sdkInfo ?? identity.sdkInfo, now));
  }
  await atomic(deps.db, statements);
  return { apiSession, identity, authPolicy: result.authPolicy };
}
