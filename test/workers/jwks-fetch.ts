import { JwksRoutes, type JwksHost } from '../helpers/jwks-host.js';

const HOST = 'jwks.idp.example';
const ORIGIN = `https://${HOST}`;

/**
 * Inside workerd the worker runs in the test's isolate, so its outbound `fetch` is intercepted for one
 * public-looking host; every other request goes out untouched.
 */
export function interceptJwksFetch(): JwksHost {
  const routes = new JwksRoutes();
  const original = globalThis.fetch;
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    // By host name, so that a refused http:// URL of the same host would be seen here if it were fetched.
    if (url.hostname !== HOST) return original(input, init);
    const reply = routes.take(url.pathname + url.search);
    if (reply.delayMs) {
      const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, reply.delayMs);
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(new DOMException('aborted', 'AbortError'));
        });
      });
    }
    return new Response(reply.body ?? '', { status: reply.status ?? 200, headers: { 'content-type': 'application/json', ...reply.headers } });
  }) as typeof fetch;
  return { url: (path) => ORIGIN + path, serve: (path, reply) => routes.serve(path, reply), hits: (path) => routes.hits(path) };
}
