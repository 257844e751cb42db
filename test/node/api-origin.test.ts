import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT, MGMT } from '../helpers/client.js';
import { createNodeTestApp, type NodeTestApp } from '../helpers/node-app.js';

/** What `npm run dev` sets: plain HTTP on the port wrangler dev really serves. */
describe('the advertised origin follows ZITI_API_SCHEME and ZITI_API_ADDRESS', () => {
  let t: NodeTestApp;
  beforeAll(async () => {
    t = await createNodeTestApp({ ZITI_API_SCHEME: 'http', ZITI_API_ADDRESS: 'localhost:8799' });
  });
  afterAll(() => t?.close());

  it('in apiBaseUrls of the version document', async () => {
    const { body } = await t.client.get(`${CLIENT}/version`);
    expect(body.data.apiVersions['edge-client'].v1.apiBaseUrls).toEqual(['http://localhost:8799/edge/client/v1']);
    expect(body.data.apiVersions['edge-management'].v1.apiBaseUrls).toEqual(['http://localhost:8799/edge/management/v1']);
    expect(body.data.apiVersions['health-checks'].v1.apiBaseUrls).toEqual(['http://localhost:8799']);
  });

  it('in the network JWT issuer, the protocols and the controller record', async () => {
    const jwts = await t.client.get(`${CLIENT}/network-jwts`);
    expect(decodeJwt(jwts.body.data[0].token).iss).toBe('http://localhost:8799/');
    const protocols = await t.client.get(`${CLIENT}/protocols`);
    expect(protocols.body.data).toEqual({ http: { address: 'http://localhost:8799' } });
    const token = await t.client.login();
    const controllers = await t.client.get(`${MGMT}/controllers`, token);
    expect(controllers.body.data[0].apiAddresses['edge-client'][0].url).toBe('http://localhost:8799/edge/client/v1');
  });

  it('refuses a scheme other than http or https at start', async () => {
    await expect(createNodeTestApp({ ZITI_API_SCHEME: 'ftp' })).rejects.toThrow('ZITI_API_SCHEME must be https or http, got "ftp"');
  });
});
