import {
  DEFAULT_SETTINGS,
  type PipelineSettings,
  validateSettings,
} from '../../../lib/pipeline-definition.ts';

/** Where a deployed function finds its resources; read once at cold start. */
export interface PipelineEnvironment {
  readonly tableName: string;
  readonly bucketName: string;
  readonly workQueueUrl: string;
  readonly finaliseQueueUrl: string;
  readonly eventBusName: string;
  readonly bureauBaseUrl: string;
  /** Secrets Manager id of the bureau token: the token itself is never in the environment. */
  readonly tokenSecretId: string;
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
  const settingsJson = requiredEnv('PIPELINE_SETTINGS', environment);
  let settings: PipelineSettings;
  try {
    settings = validateSettings({
      ...DEFAULT_SETTINGS,
      ...(JSON.parse(settingsJson) as Partial<PipelineSettings>),
    });
  } catch (error) {
    throw new Error(`PIPELINE_SETTINGS is not valid: ${(error as Error).message}`);
  }
  return {
    tableName: requiredEnv('TABLE_NAME', environment),
    bucketName: requiredEnv('BUCKET_NAME', environment),
    workQueueUrl: requiredEnv('WORK_QUEUE_URL', environment),
    finaliseQueueUrl: requiredEnv('FINALISE_QUEUE_URL', environment),
    eventBusName: requiredEnv('EVENT_BUS_NAME', environment),
    bureauBaseUrl: requiredEnv('BUREAU_BASE_URL', environment),
    tokenSecretId: requiredEnv('BUREAU_TOKEN_SECRET_ID', environment),
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
  const declared = environment.DECLARED_PORTFOLIOS ?? '[]';
  let names: unknown;
  try {
    names = JSON.parse(declared);
  } catch {
    names = null;
  }
  if (!Array.isArray(names) || !names.every((name) => typeof name === 'string'))
    throw new Error('DECLARED_PORTFOLIOS must be a JSON array of portfolio names');
  return {
    groupName: requiredEnv('SCHEDULE_GROUP_NAME', environment),
    targetArn: requiredEnv('SCHEDULE_TARGET_ARN', environment),
    roleArn: requiredEnv('SCHEDULE_ROLE_ARN', environment),
    declaredPortfolios: new Set(names as string[]),
  };
}
