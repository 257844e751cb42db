/** The floor on workerd: the same bare app over the controller's D1 database (binding DB). */
import { floorApp, type Query, type Run, type RunAll } from './app.js';

interface Env {
  DB: D1Database;
}

interface TlsClientAuth {
  certPresented?: string;
  certVerified?: string;
  certFingerprintSHA1?: string;
}

let app: ReturnType<typeof floorApp> | undefined;

/** The floor app over the isolate's D1 binding, made once per isolate. */
function floorFor(env: Env): ReturnType<typeof floorApp> {
  const query: Query = async (sql, args) => (await env.DB.prepare(sql).bind(...args).all<Record<string, unknown>>()).results;
  const run: Run = async (sql, args) => void (await env.DB.prepare(sql).bind(...args).run());
  const runAll: RunAll = async (statements) => void (await env.DB.batch(statements.map(({ sql, args }) => env.DB.prepare(sql).bind(...args))));
  return floorApp(query, {
    run,
    runAll,
    // The platform's verdict on the TLS client certificate (hostname mTLS): only a verified one counts.
    fingerprint(c) {
      const tls = (c.req.raw as Request & { cf?: { tlsClientAuth?: TlsClientAuth } }).cf?.tlsClientAuth;
      return tls?.certPresented === '1' && tls.certVerified === 'SUCCESS' ? tls.certFingerprintSHA1?.toLowerCase() : undefined;
    },
  });
}

export default {
  fetch(request: Request, env: Env): Response | Promise<Response> {
    app ??= floorFor(env);
    return app.fetch(request);
  },
} satisfies ExportedHandler<Env>;
