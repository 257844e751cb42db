import type { Capabilities } from '../../generated/management-types.js';
import type { Config } from '../../config.js';
import { CLIENT_BASE, MANAGEMENT_BASE } from '../../http/paths.js';

/** The document served at `/`, `/version` and the bare base paths of both APIs. */
export function versionDocument(config: Config) {
  const origin = config.apiOrigin;
  const api = (path: string, urls: string[]) => ({ v1: { path, apiBaseUrls: urls } });
  const client = api(CLIENT_BASE, [origin + CLIENT_BASE]);
  return {
    version: config.version,
    revision: config.revision,
    buildDate: config.buildDate,
    runtimeVersion: config.runtimeVersion,
    // OIDC login once the provider is on (ZITI_OIDC): clients switch to it as soon as they see it. No HA clustering.
    capabilities: (config.oidc.enabled ? ['OIDC_AUTH'] : []) as string[],
    apiVersions: {
      edge: client,
      'edge-client': client,
      'edge-management': api(MANAGEMENT_BASE, [origin + MANAGEMENT_BASE]),
      // The OIDC provider (src/oidc); listed without URLs, as the controller lists unserved APIs, when it is off.
      'edge-oidc': api('/oidc', config.oidc.enabled ? [origin + '/oidc'] : []),
      // Served at /health-checks (src/observability); as the controller does, the URL is the origin only.
      'health-checks': api('/health-checks/v1', [origin]),
    },
  };
}

/** Every capability the API can announce (not the ones enabled). */
export const ENUMERATED_CAPABILITIES: Capabilities[] = ['OIDC_AUTH', 'HA_CONTROLLER'];
