import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JwksRoutes, type JwksHost } from '../helpers/jwks-host.js';

/** A real HTTP identity-provider endpoint on 127.0.0.1 and a random port. */
export async function startJwksServer(): Promise<JwksHost & { close(): Promise<void>; base: string }> {
  const routes = new JwksRoutes();
  const server: Server = createServer((req, res) => {
    const reply = routes.take(req.url ?? '/');
    const send = () => {
      if (res.destroyed) return;
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body ?? '');
    };
    if (reply.delayMs) {
      const timer = setTimeout(send, reply.delayMs);
      res.on('close', () => clearTimeout(timer));
    } else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    url: (path) => base + path,
    serve: (path, reply) => routes.serve(path, reply),
    hits: (path) => routes.hits(path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
