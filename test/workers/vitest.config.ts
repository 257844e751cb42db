import { fileURLToPath } from 'node:url';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-pool-workers';
import { defineProject } from 'vitest/config';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The workers project: the real worker inside workerd, with miniflare's local D1 and the migrations applied. */
export default defineProject(async () => {
  const migrations = await readD1Migrations(`${root}/drizzle`);
  return {
    plugins: [
      cloudflareTest({
        main: `${root}/src/worker.ts`,
        wrangler: { configPath: `${root}/wrangler.toml` },
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            CONTROLLER_SECRET: 'workers-test-secret-0123456789',
            ADMIN_USERNAME: 'admin',
            ADMIN_PASSWORD: 'admin-password-for-tests',
            ZITI_API_ADDRESS: 'localhost:1280',
            // The zone forwards the verified client leaf in this header (src/worker.ts).
            ZITI_CLIENT_CERT_HEADER: 'x-client-cert-der',
            ZITI_JWKS_TIMEOUT_MS: '1000',
            // OIDC revocations reach every instance within this bound (the suites measure it).
            ZITI_OIDC_REVOCATION_POLL_MS: '1000',
          },
        },
      }),
    ],
    test: {
      name: 'workers',
      root,
      include: ['test/workers/**/*.test.ts'],
      setupFiles: ['test/workers/apply-migrations.ts'],
      testTimeout: 60_000,
      hookTimeout: 60_000,
    },
  };
});
