/**
 * The layers of docs/architecture.md, enforced by `npm run lint` (and so by CI):
 *
 *   entries (worker.ts, node.ts, app.ts) → http/ → resources/<r>/handlers → services → repos → db/
 *
 * Handlers never reach the store; services never see HTTP; the lower layers (db, repos, crud, auth,
 * pki, enrollment, lib) never import http/; drizzle is imported only by repos and the store's own code;
 * no module imports itself in a circle.
 *
 * The rules apply to what a module imports at run time: `import type` is erased by the compiler (and by
 * the Babel pass that reads the sources here), so a type may cross a layer, code may not.
 */
const REPO = '(^src/db/|^src/crud/(repo|list-query|entity|props)\\.ts$|^src/lib/zitiql/|repo\\.ts$|^src/bootstrap\\.ts$|^src/node\\.ts$)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: split the shared part into its own module.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'handlers-not-to-store',
      severity: 'error',
      comment: 'Handlers call services; only repos touch the store (db/, drizzle, repo.ts).',
      from: { path: '^src/resources/[^/]+/handlers\\.ts$' },
      to: { path: ['^src/db/', '/repo\\.ts$', '^src/crud/repo\\.ts$', 'drizzle-orm'] },
    },
    {
      name: 'services-not-to-http',
      severity: 'error',
      comment: 'Services, repos, mappers and entities know nothing of HTTP: they get a ServiceContext.',
      from: { path: '^src/resources/[^/]+/(service|repo|mapper|entity|fields)\\.ts$' },
      to: { path: ['^src/http/', '^hono($|/)'] },
    },
    {
      name: 'lower-layers-not-to-http',
      severity: 'error',
      comment: 'The store, the CRUD engine, auth, PKI, enrollment and pure code never import http/ or Hono.',
      from: { path: '^src/(db|crud|auth|pki|enrollment|lib|policy|mfa|posture)/' },
      to: { path: ['^src/http/', '^hono($|/)'] },
    },
    {
      name: 'oidc-flows-not-to-http',
      severity: 'error',
      comment: 'The OIDC provider: only its routes speak HTTP; flows, tokens, keys and revocations never import http/ or Hono.',
      from: { path: '^src/oidc/', pathNot: '^src/oidc/routes\\.ts$' },
      to: { path: ['^src/http/', '^hono($|/)'] },
    },
    {
      name: 'lower-layers-not-to-resources',
      severity: 'error',
      comment: 'The store and pure code do not depend on resources.',
      from: { path: '^src/(db|lib)/' },
      to: { path: '^src/resources/' },
    },
    {
      name: 'drizzle-only-in-repos',
      severity: 'error',
      comment: 'Queries live in repos; elsewhere at most a type from drizzle.',
      from: { path: '^src/', pathNot: REPO },
      to: { path: 'drizzle-orm' },
    },
    {
      name: 'node-store-only-from-node-entry',
      severity: 'error',
      comment: 'The native SQLite store runs on Node only: nothing the worker bundles may import it.',
      from: { path: '^src/', pathNot: '^src/node\\.ts$|^src/db/(native|node-store)\\.ts$' },
      to: { path: '^src/db/(native|node-store)\\.ts$' },
    },
    {
      name: 'no-node-builtins-below-entries',
      severity: 'error',
      comment: 'Only the Node entry and the Node-only store it opens know Node; everything else runs on Workers too.',
      from: { path: '^src/', pathNot: '^src/node\\.ts$|^src/db/(native|node-store)\\.ts$|^src/cli/' },
      to: { dependencyTypes: ['core'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // TypeScript 7 has no JavaScript compiler API, which dependency-cruiser's TypeScript parser needs:
    // Babel (pure JavaScript, so the lockfile installs everywhere) reads the sources instead.
    babelConfig: { fileName: '.babelrc.json' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.mjs', '.cjs', '.d.ts'] },
    exclude: { path: '^src/generated/' },
  },
};
