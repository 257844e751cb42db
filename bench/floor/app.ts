/**
 * The floor: a bare Hono app doing the least a request to this controller can do, against the same
 * store as the controller, on the same runtime, measured in the same run.
 * - `GET /__floor/read/:id`: one indexed SQLite read (an identity by primary key);
 * - `POST /__floor/login`: one indexed read (an authenticator by username) and one password
 *   verification with the controller's own hash function, the floor of a password login.
 * Every scenario is reported as a ratio to one of them.
 */
import { Hono } from 'hono';
import { verifyPassword } from '../../src/auth/password.js';

export type Query = (sql: string, args: (string | number)[]) => Promise<Record<string, unknown>[]>;

export function floorApp(query: Query): Hono {
  const app = new Hono();
  app.get('/__floor/read/:id', async (c) => {
    const rows = await query('SELECT id, name, role_attributes FROM identities WHERE id = ?', [c.req.param('id')]);
    if (rows.length === 0) return c.json({ error: { code: 'NOT_FOUND' } }, 404);
    return c.json({ data: rows[0], meta: {} });
  });
  app.post('/__floor/login', async (c) => {
    const { username, password } = await c.req.json<{ username: string; password: string }>();
    const rows = await query('SELECT id, password_hash FROM authenticators WHERE username = ?', [username]);
    const ok = rows.length > 0 && (await verifyPassword(password, rows[0].password_hash as string));
    if (!ok) return c.json({ error: { code: 'INVALID_AUTH' } }, 401);
    return c.json({ data: { id: rows[0].id }, meta: {} });
  });
  return app;
}
