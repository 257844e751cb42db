import { describe, expect, it } from 'vitest';
import { CLIENT, MGMT, ORIGIN, type TestClient } from '../helpers/client.js';

/** The health-check API, run unchanged on Node and on workerd. */
export function observabilitySuite(client: () => TestClient) {
  describe('health checks', () => {
    it('answers OpenZiti\'s health document with a passing store check, anonymously', async () => {
      const reply = await client().get('/health-checks');
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-type')).toBe('application/json');
      expect(reply.body.meta).toEqual({});
      expect(reply.body.data.healthy).toBe(true);
      expect(reply.body.data.checks).toHaveLength(1);
      const [check] = reply.body.data.checks;
      expect(check.id).toBe('store.read');
      expect(check.healthy).toBe(true);
      expect(check.lastCheckDuration).toMatch(/^\d+(\.\d+)?(µs|ms|s)$/);
      expect(check.lastCheckTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(check).not.toHaveProperty('err');
      expect(reply.headers.get('x-request-id')).toMatch(/^[0-9A-Za-z]{6,}$/);
    });

    it('gives only ids and verdicts with ?type=short, and the raft section under /controller/raft', async () => {
      const short = await client().get('/health-checks?type=short');
      expect(short.body.data).toEqual({ checks: [{ id: 'store.read', healthy: true }], healthy: true });
      const raft = await client().get('//health-checks/controller/raft');
      expect(raft.status).toBe(200);
      expect(raft.body.raft).toEqual({ isRaftEnabled: false, isLeader: false });
      expect(raft.body.data.healthy).toBe(true);
    });

    it('refuses other methods with 405 and changes nothing', async () => {
      const reply = await client().request('/health-checks', { method: 'POST', body: {} });
      expect(reply.status).toBe(405);
      expect(reply.headers.get('allow')).toBe('GET, HEAD');
    });

    it('is announced in apiVersions with the origin only, as the controller does', async () => {
      for (const path of [`${CLIENT}/version`, `${MGMT}/version`]) {
        const reply = await client().get(path);
        expect(reply.body.data.apiVersions['health-checks']).toEqual({ v1: { path: '/health-checks/v1', apiBaseUrls: [ORIGIN] } });
      }
    });

    it('leaves /metrics to the Node entry\'s setting: off, it is an unknown path', async () => {
      const reply = await client().get('/metrics');
      expect(reply.status).toBe(404);
      expect(reply.body.error.code).toBe('NOT_FOUND');
    });
  });
}
