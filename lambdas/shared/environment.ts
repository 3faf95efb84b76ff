import {
  DEFAULT_SETTINGS,
  type PipelineSettings,
  SCHEDULE_ENVIRONMENT_VARIABLES as SCHEDULE_VARIABLES,
  ENVIRONMENT_VARIABLES as VARIABLES,
  validateSettings,
} from '../../src/contract/index.ts';

/** Where a deployed function finds its resources; read once at cold start. */
export interface PipelineEnvironment {
  readonly tableName: string;
  readonly bucketName: string;
  readonly workQueueUrl: string;
  readonly finaliseQueueUrl: string;
  readonly dispatchQueueUrl: string;
  readonly eventBusName: string;
  readonly bureauBaseUrl: string;
  /** Secrets Manager id of the bureau token: the token itself is never in the environment. */
  readonly tokenSecretId: string;
  readonly auditKeySecretId: string;
  readonly settings: PipelineSettings;
}

/** An environment variable that must be set; a missing one fails at cold start, naming it. */
export function requiredEnv(name: string, environment: NodeJS.ProcessEnv = process.env): string {
  const value = environment[name];
  if (value === undefined || value.trim() === '')
    throw new Error(`missing setting: environment variable ${name} is not set`);
  return value;
}

export function readPipelineEnvironment(environment: NodeJS.ProcessEnv = process.env): PipelineEnvironment {
  const settingsJson = requiredEnv(VARIABLES.settings, environment);
  let settings: PipelineSettings;
  try {
    settings = validateSettings({
      ...DEFAULT_SETTINGS,
      ...(JSON.parse(settingsJson) as Partial<PipelineSettings>),
    });
  } catch (error) {
    throw new Error(`${VARIABLES.settings} is not valid: ${(error as Error).message}`);
  }
  return {
    tableName: requiredEnv(VARIABLES.tableName, environment),
    bucketName: requiredEnv(VARIABLES.bucketName, environment),
    workQueueUrl: requiredEnv(VARIABLES.workQueueUrl, environment),
    finaliseQueueUrl: requiredEnv(VARIABLES.finaliseQueueUrl, environment),
    dispatchQueueUrl: requiredEnv(VARIABLES.dispatchQueueUrl, environment),
    eventBusName: requiredEnv(VARIABLES.eventBusName, environment),
    bureauBaseUrl: requiredEnv(VARIABLES.bureauBaseUrl, environment),
    tokenSecretId: requiredEnv(VARIABLES.tokenSecretId, environment),
    auditKeySecretId: requiredEnv(VARIABLES.auditKeySecretId, environment),
    settings,
  };
}

/** The portfolio-schedules function's extra settings: where schedules go and what they invoke. */
export interface ScheduleEnvironment {
  readonly groupName: string;
  readonly targetArn: string;
  readonly roleArn: string;
  /** Portfolios whose schedules the stack declares (their files do not change them). */
  readonly declaredPortfolios: ReadonlySet<string>;
}

export function readScheduleEnvironment(environment: NodeJS.ProcessEnv = process.env): ScheduleEnvironment {
  const declared = environment[SCHEDULE_VARIABLES.declaredPortfolios] ?? '[]';
  let names: unknown;
  try {
    names = JSON.parse(declared);
  } catch {
    names = null;
  }
  if (!Array.isArray(names) || !names.every((name) => typeof name === 'string'))
    throw new Error(`${SCHEDULE_VARIABLES.declaredPortfolios} must be a JSON array of portfolio names`);
  return {
    groupName: requiredEnv(SCHEDULE_VARIABLES.groupName, environment),
    targetArn: requiredEnv(SCHEDULE_VARIABLES.targetArn, environment),
    roleArn: requiredEnv(SCHEDULE_VARIABLES.roleArn, environment),
    declaredPortfolios: new Set(names as string[]),
  };
}
