import type { JWK } from 'jose';
import { isIpLiteral, isPrivateAddress, refuseJwksUrl } from './hosts.js';
import { readCapped } from '../../lib/streams.js';

/** A JWKS is a few kilobytes; anything near this is not one. */
export const JWKS_MAX_BYTES = 256 * 1024;
const MAX_REDIRECTS = 3;
const MAX_KEYS = 100;

export interface JwksFetchPolicy {
  /** `ZITI_JWKS_ALLOW_PRIVATE`: http and internal hosts allowed. */
  allowPrivate: boolean;
  /** Connect, redirects and body together. */
  timeoutMs: number;
  maxBytes?: number;
}

/** A JWKS that could not be fetched or used; the message is for the log (never a token, never a key). */
export class JwksError extends Error {}

/**
 * Resolves a host name to its addresses. Only the Node entry sets one (Workers cannot reach private
 * addresses through `fetch` at all): a public-looking name that resolves into the private network is
 * refused too. The fetch resolves the name again, so a name whose answer changes between the two
 * lookups is not caught; keep ZITI_JWKS_ALLOW_PRIVATE off and such providers are the only gap.
 */
type HostResolver = (host: string) => Promise<string[]>;
let resolveHost: HostResolver | undefined;

export function setJwksHostResolver(resolver: HostResolver | undefined): void {
  resolveHost = resolver;
}

async function checkUrl(url: URL, policy: JwksFetchPolicy): Promise<void> {
  const refused = refuseJwksUrl(url, policy.allowPrivate);
  if (refused) throw new JwksError(`JWKS endpoint refused: ${refused}`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (policy.allowPrivate || !resolveHost || isIpLiteral(host)) return;
  let addresses: string[];
  try {
    addresses = await resolveHost(host);
  } catch {
    throw new JwksError('JWKS endpoint refused: host does not resolve');
  }
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) throw new JwksError('JWKS endpoint refused: host resolves to a private address');
}

async function readJwksText(response: Response, maxBytes: number): Promise<string> {
  const bytes = await readCapped(response.body, response.headers.get('content-length'), maxBytes, () => new JwksError('JWKS response too large'));
  return new TextDecoder().decode(bytes);
}

/** The usable keys of a JWKS document: objects with a string `kid`, at most MAX_KEYS of them. */
function parseJwks(text: string): JWK[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new JwksError('JWKS is not JSON');
  }
  const keys = (doc as { keys?: unknown })?.keys;
  if (!Array.isArray(keys)) throw new JwksError('JWKS has no keys array');
  return keys.filter((k): k is JWK => typeof k === 'object' && k !== null && typeof (k as JWK).kid === 'string').slice(0, MAX_KEYS);
}

/**
 * Fetches a signer's JWKS with `fetch` only (the same code on Node and Workers): https to public hosts
 * unless private hosts are allowed; redirects followed by hand, only to the same host, at most three; one
 * deadline for the whole exchange; the body read up to a size cap.
 */
export async function fetchJwks(endpoint: string, policy: JwksFetchPolicy): Promise<JWK[]> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  // The deadline holds even if a runtime's fetch ignored the abort signal.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new JwksError('JWKS fetch timed out'));
    }, policy.timeoutMs);
  });
  try {
    const work = exchange(endpoint, policy, controller.signal);
    // A late failure after the deadline has nobody waiting for it.
    work.catch(() => undefined);
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function exchange(endpoint: string, policy: JwksFetchPolicy, signal: AbortSignal): Promise<JWK[]> {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new JwksError('JWKS endpoint is not a URL');
  }
  const origin = url.host;
  try {
    for (let hop = 0; ; hop++) {
      await checkUrl(url, policy);
      const response = await fetch(url.href, { redirect: 'manual', signal, headers: { accept: 'application/json' } });
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel();
        const location = response.headers.get('location');
        if (!location || hop >= MAX_REDIRECTS) throw new JwksError('JWKS redirect refused: too many or without a location');
        const next = new URL(location, url);
        if (next.host !== origin) throw new JwksError('JWKS redirect refused: another host');
        url = next;
        continue;
      }
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new JwksError(`JWKS endpoint answered ${response.status}`);
      }
      return parseJwks(await readJwksText(response, policy.maxBytes ?? JWKS_MAX_BYTES));
    }
  } catch (e) {
    if (e instanceof JwksError) throw e;
    throw new JwksError(signal.aborted ? 'JWKS fetch timed out' : 'JWKS fetch failed');
  }
}
