import * as clientOps from './generated/client-operations.js';
import * as clientSchemas from './generated/client-schemas.js';
import * as managementOps from './generated/management-operations.js';
import * as managementSchemas from './generated/management-schemas.js';
import { mergeHandlers, type ClientOperations, type ManagementOperations, type SharedOperations } from './http/handler.js';
import type { SessionRider } from './http/session.js';
import type { ApiDefinition, ListReadAhead } from './http/register.js';
import { apiSessionHandlers } from './resources/api-sessions/handlers.js';
import { authenticateHandlers } from './resources/authenticate/handlers.js';
import { authenticatorLifecycleHandlers, certExtensionHandlers } from './resources/authenticator-lifecycle/handlers.js';
import { authenticatorHandlers } from './resources/authenticators/handlers.js';
import { authPolicyHandlers } from './resources/auth-policies/handlers.js';
import { configTypeHandlers } from './resources/config-types/handlers.js';
import { configHandlers } from './resources/configs/handlers.js';
import { controllerSettingHandlers } from './resources/controller-settings/handlers.js';
import { caHandlers } from './resources/cas/handlers.js';
import { edgeRouterPolicyHandlers } from './resources/edge-router-policies/handlers.js';
import { edgeRouterHandlers } from './resources/edge-routers/handlers.js';
import { identityServicesReadAhead, policyListHandlers } from './resources/policy-lists/handlers.js';
import { serviceEdgeRouterPolicyHandlers } from './resources/service-edge-router-policies/handlers.js';
import { servicePolicyHandlers } from './resources/service-policies/handlers.js';
import { clientServiceHandlers, serviceHandlers } from './resources/services/handlers.js';
import { clientSessionHandlers, managementSessionHandlers, sessionHandlers } from './resources/sessions/handlers.js';
import { probeRider } from './resources/sessions/service.js';
import { servicesRider } from './resources/services/service.js';
import { terminatorHandlers } from './resources/terminators/handlers.js';
import { transitRouterHandlers } from './resources/transit-routers/handlers.js';
import { currentApiSessionClientHandlers, currentApiSessionHandlers } from './resources/current-api-session/handlers.js';
import { currentIdentityClientHandlers, currentIdentityHandlers } from './resources/current-identity/handlers.js';
import { identityRider } from './resources/current-identity/service.js';
import { discoveryHandlers } from './resources/discovery/handlers.js';
import { enrollHandlers } from './resources/enroll/handlers.js';
import { enrollmentHandlers } from './resources/enrollments/handlers.js';
import { clientExternalJwtSignerHandlers, externalJwtSignerHandlers } from './resources/external-jwt-signers/handlers.js';
import { identityHandlers, identityListReadAhead } from './resources/identities/handlers.js';
import { sessionCertificateHandlers } from './resources/session-certificates/handlers.js';
import { identityTypeHandlers } from './resources/identity-types/handlers.js';
import { identityMfaHandlers, mfaHandlers } from './resources/mfa/handlers.js';
import { databaseHandlers } from './resources/database/handlers.js';
import { identityTraceHandlers } from './resources/identity-trace/handlers.js';
import { summaryHandlers } from './resources/summary/handlers.js';
import { postureCheckTypeHandlers } from './resources/posture-check-types/handlers.js';
import { postureCheckHandlers } from './resources/posture-checks/handlers.js';
import { postureDataHandlers } from './resources/posture-data/handlers.js';
import { postureResponseHandlers } from './resources/posture-responses/handlers.js';

/**
 * Both APIs: the generated operation tables with the handlers implemented so far. Operations both APIs
 * share (same operationId) are implemented once and listed in both. An operationId handled twice in one
 * API, or one the specification does not have, does not compile.
 */
/**
 * Operations that read what they answer along with the session check, in its statement (one round trip
 * on D1 instead of two). A misspelt or foreign operation id does not compile.
 */
const SESSION_RIDERS = { getCurrentIdentity: identityRider } satisfies Partial<Record<keyof SharedOperations, SessionRider<unknown>>>;
const CLIENT_SESSION_RIDERS = { ...SESSION_RIDERS, createSession: probeRider, listServices: servicesRider } satisfies Partial<Record<keyof ClientOperations, SessionRider<unknown>>>;

export const clientApi: ApiDefinition = {
  name: 'client',
  basePath: clientOps.basePath,
  operations: clientOps.operations,
  schemas: clientSchemas,
  handlers: mergeHandlers<ClientOperations>()(
    discoveryHandlers.client,
    authenticateHandlers,
    currentApiSessionHandlers,
    currentApiSessionClientHandlers,
    currentIdentityHandlers,
    currentIdentityClientHandlers,
    clientServiceHandlers,
    sessionHandlers,
    clientSessionHandlers,
    mfaHandlers,
    certExtensionHandlers,
    enrollHandlers,
    sessionCertificateHandlers,
    clientExternalJwtSignerHandlers,
    postureResponseHandlers,
  ),
  riders: CLIENT_SESSION_RIDERS,
};

/** Admin lists read in the same round trip as the session check on stores across the network (docs/adr/0016-list-read-ahead.md). */
const MANAGEMENT_READ_AHEAD = { listIdentities: identityListReadAhead, listIdentityServices: identityServicesReadAhead } satisfies Partial<Record<keyof ManagementOperations, ListReadAhead>>;

export const managementApi: ApiDefinition = {
  name: 'management',
  basePath: managementOps.basePath,
  operations: managementOps.operations,
  schemas: managementSchemas,
  riders: SESSION_RIDERS,
  readAhead: MANAGEMENT_READ_AHEAD,
  handlers: mergeHandlers<ManagementOperations>()(
    discoveryHandlers.management,
    authenticateHandlers,
    currentApiSessionHandlers,
    currentIdentityHandlers,
    mfaHandlers,
    apiSessionHandlers,
    identityHandlers,
    identityMfaHandlers,
    identityTypeHandlers,
    authenticatorHandlers,
    authPolicyHandlers,
    configTypeHandlers,
    configHandlers,
    certExtensionHandlers,
    enrollmentHandlers,
    caHandlers,
    authenticatorLifecycleHandlers,
    externalJwtSignerHandlers,
    serviceHandlers,
    sessionHandlers,
    managementSessionHandlers,
    edgeRouterHandlers,
    servicePolicyHandlers,
    edgeRouterPolicyHandlers,
    serviceEdgeRouterPolicyHandlers,
    policyListHandlers,
    transitRouterHandlers,
    terminatorHandlers,
    summaryHandlers,
    databaseHandlers,
    identityTraceHandlers,
    postureCheckHandlers,
    postureCheckTypeHandlers,
    postureDataHandlers,
    controllerSettingHandlers,
  ),
};
