import { defineConfig } from 'drizzle-kit';

// Migrations are generated into drizzle/ and applied by the Node entry (drizzle's migrator) and by
// `wrangler d1 migrations apply` (wrangler.toml points migrations_dir here).
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/schema/index.ts',
  out: './drizzle',
});
