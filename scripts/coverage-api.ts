/**
 * Prints, per API, how many specification operations have a handler (implemented) out of all routed
 * operations, and lists the missing ones (they answer 501 NOT_IMPLEMENTED).
 * `--json` prints the same as JSON.
 */
import 'reflect-metadata';
import { clientApi, managementApi } from '../src/apis.js';

const report = [clientApi, managementApi].map((api) => {
  const handled = api.handlers as Record<string, unknown>;
  const missing = api.operations.filter((o) => !handled[o.operationId]);
  return {
    api: api.name,
    implemented: api.operations.length - missing.length,
    total: api.operations.length,
    missing: missing.map((o) => `${o.method} ${api.basePath}${o.path} (${o.operationId})`),
  };
});

if (process.argv.includes('--json')) {
  console.log(JSON.stringify(report, null, 2));
} else {
  for (const r of report) {
    console.log(`${r.api}: ${r.implemented}/${r.total} implemented`);
    for (const m of r.missing) console.log(`  501 ${m}`);
  }
  const implemented = report.reduce((n, r) => n + r.implemented, 0);
  const total = report.reduce((n, r) => n + r.total, 0);
  console.log(`total: ${implemented}/${total} implemented`);
}
