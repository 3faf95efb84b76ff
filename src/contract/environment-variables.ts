/** The names of the functions' environment variables and how their values are written. */

import type { PipelineSettings } from './settings.ts';

/**
 * The functions' environment variables, by what they hold: the construct writes them, each function reads them
 * once at cold start (lambdas/shared/environment.ts). Only the secret's id travels, never the token.
 */
export const ENVIRONMENT_VARIABLES = {
  tableName: 'TABLE_NAME',
  bucketName: 'BUCKET_NAME',
  workQueueUrl: 'WORK_QUEUE_URL',
  finaliseQueueUrl: 'FINALISE_QUEUE_URL',
  dispatchQueueUrl: 'DISPATCH_QUEUE_URL',
  eventBusName: 'EVENT_BUS_NAME',
  bureauBaseUrl: 'BUREAU_BASE_URL',
  tokenSecretId: 'BUREAU_TOKEN_SECRET_ID',
  /** The secret whose value keys documents in the audit log (an HMAC key); its id, never its value. */
  auditKeySecretId: 'AUDIT_KEY_SECRET_ID',
  settings: 'PIPELINE_SETTINGS',
} as const;

/** The portfolio-schedules function's extra variables: where schedules go and what they invoke. */
export const SCHEDULE_ENVIRONMENT_VARIABLES = {
  groupName: 'SCHEDULE_GROUP_NAME',
  targetArn: 'SCHEDULE_TARGET_ARN',
  roleArn: 'SCHEDULE_ROLE_ARN',
  declaredPortfolios: 'DECLARED_PORTFOLIOS',
} as const;

/** The console API function's extra variable: the user pool whose reviewers a manager gives rows to. */
export const CONSOLE_ENVIRONMENT_VARIABLES = { userPoolId: 'CONSOLE_USER_POOL_ID' } as const;

/** The environment that tells a function where its resources are (values may be CDK tokens). */
export function pipelineEnvironmentVariables(
  values: Readonly<Record<Exclude<keyof typeof ENVIRONMENT_VARIABLES, 'settings'>, string>>,
  settings: PipelineSettings,
): Record<string, string> {
  const variables: Record<string, string> = {
    [ENVIRONMENT_VARIABLES.settings]: JSON.stringify(settings),
  };
  for (const [name, variable] of Object.entries(ENVIRONMENT_VARIABLES))
    if (name !== 'settings') variables[variable] = values[name as keyof typeof values];
  return variables;
}

/** The portfolio-schedules function's environment. */
export function scheduleEnvironmentVariables(values: {
  readonly groupName: string;
  readonly targetArn: string;
  readonly roleArn: string;
  readonly declaredPortfolios: readonly string[];
}): Record<string, string> {
  return {
    [SCHEDULE_ENVIRONMENT_VARIABLES.groupName]: values.groupName,
    [SCHEDULE_ENVIRONMENT_VARIABLES.targetArn]: values.targetArn,
    [SCHEDULE_ENVIRONMENT_VARIABLES.roleArn]: values.roleArn,
    [SCHEDULE_ENVIRONMENT_VARIABLES.declaredPortfolios]: JSON.stringify(values.declaredPortfolios),
  };
}
