/**
 * Public entry point of the service client: `import { ServiceClient } from 'credit-screen/client'`.
 * @module
 */

export { type AgentFileSource, DEFAULT_MAX_AGENT_FILE_BYTES } from './agent-file.ts';
export type {
  AIAgentIntegrationRequest,
  AIAgentRequest,
  AIHandoffSettingsRequest,
  AiAgentsApi,
  DeleteOptions,
  ListOptions,
  UpdateOptions,
} from './ai-agents-api.ts';
export type {
  AiStudioApi,
  CompletedGeneration,
  CreateProjectRequest,
  GenerateRequest,
  ProjectMessageRequest,
  UpdateProjectRequest,
} from './ai-studio-api.ts';
export {
  ARTIFACT_TYPES,
  type ArtifactType,
  GENERATION_OPERATIONS,
  type GenerationOperation,
  MAX_PROJECT_DESCRIPTION_CHARACTERS,
  MAX_PROJECT_NAME_CHARACTERS,
} from './ai-studio-rules.ts';
export {
  type BureauEndpoints,
  CREDIT_QUERY_SUCCESS_STATUS,
  type CreditBureau,
  CreditReportClient,
  type CreditReportRequestOptions,
  type CreditReportResponse,
  DEFAULT_BUREAU_ENDPOINTS,
} from './credit-report-client.ts';
export {
  GenerationCancelledError,
  GenerationFailedError,
  GenerationTimeoutError,
  type JobPhase,
  type JobSnapshot,
  type JobWaitOptions,
  jobIdOf,
  jobStateOf,
} from './generation-job.ts';
export {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_USER_AGENT,
  ServiceTransport,
  type ServiceTransportConfig,
} from './http-transport.ts';
export { type QueryParameters, RequestValidationError } from './request-validation.ts';
export type { CallOptions } from './service-caller.ts';
export { ServiceClient, type ServiceClientConfig } from './service-client.ts';
export {
  InvalidTokenError,
  OversizedResponseError,
  RateLimitedError,
  RejectedError,
  ServiceError,
  type ServiceErrorKind,
  TransientError,
} from './service-errors.ts';
export {
  envelopeData,
  type JsonObject,
  type JsonValue,
  readErrorFields,
  type ServiceReply,
} from './service-response.ts';
export { CLIENT_VERSION } from './version.ts';
