import { json } from '../../http/envelope.js';
import { handlers, type ManagementOperations } from '../../http/handler.js';
import { integrityResults, startIntegrityRun } from '../../operations/integrity.js';
import { createSnapshot } from './service.js';

/** 202 `{"data":{},"meta":{}}`: the run goes on in the background (reference §10.5). */
const accepted = () => json({ data: {}, meta: {} }, 202);

/** `/database/*`: snapshots and the data-integrity check and fix. */
export const databaseHandlers = handlers<ManagementOperations>()({
  createDatabaseSnapshot: async ({ svc, reply }) => reply.ok(await createSnapshot(svc)),
  checkDataIntegrity: async ({ svc, reply }) => (await startIntegrityRun(svc, 'check'), reply.raw(accepted())),
  fixDataIntegrity: async ({ svc, reply }) => (await startIntegrityRun(svc, 'fix'), reply.raw(accepted())),
  dataIntegrityResults: async ({ svc, reply }) => {
    const { data, total } = await integrityResults(svc);
    return reply.ok(data, { pagination: { limit: -1, offset: 0, totalCount: total } });
  },
});
