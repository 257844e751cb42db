/** The floor on workerd: the same bare app over the controller's D1 database (binding DB). */
import { floorApp, type Query } from './app.js';

interface Env {
  DB: D1Database;
}

let app: ReturnType<typeof floorApp> | undefined;

export default {
  fetch(request: Request, env: Env): Response | Promise<Response> {
    const query: Query = async (sql, args) => (await env.DB.prepare(sql).bind(...args).all<Record<string, unknown>>()).results;
    app ??= floorApp(query);
    return app.fetch(request);
  },
} satisfies ExportedHandler<Env>;
