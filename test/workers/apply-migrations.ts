import { applyD1Migrations } from 'cloudflare:test';
import { env } from 'cloudflare:workers';

// The same drizzle/ migrations that `wrangler d1 migrations apply` uses; applying is idempotent.
await applyD1Migrations((env as any).DB, (env as any).TEST_MIGRATIONS);
