import { handlers, type ManagementOperations } from '../../http/handler.js';
import { summary } from './service.js';

/** `GET /summary`. */
export const summaryHandlers = handlers<ManagementOperations>()({
  listSummary: async ({ svc, reply }) => reply.ok(await summary(svc.deps)),
});
