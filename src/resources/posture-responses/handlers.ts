import { json } from '../../http/envelope.js';
import { handlers, type ClientOperations } from '../../http/handler.js';
import { submitPostureResponses } from './service.js';

/**
 * Client `POST /posture-response` (201, as the controller) and `POST /posture-response-bulk` (200, the
 * status the specification declares: clients generated from it treat the controller's 201 as an error).
 */
export const postureResponseHandlers = handlers<ClientOperations>()({
  createPostureResponse: async ({ svc, caller, body, reply }) => reply.raw(json({ data: await submitPostureResponses(svc.deps, caller, [body]), meta: {} }, 201)),
  createPostureResponseBulk: async ({ svc, caller, body, reply }) => reply.ok(await submitPostureResponses(svc.deps, caller, body)),
});
