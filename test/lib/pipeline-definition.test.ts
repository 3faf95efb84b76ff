import { describe, expect, it } from 'vitest';
import {
  readPipelineEnvironment,
  readScheduleEnvironment,
  requiredEnv,
} from '../../lambdas/shared/environment.ts';
import {
  bureausWith,
  claimLeaseSeconds,
  DEFAULT_SETTINGS,
  MAX_FINALISE_PART_ROWS,
  MAX_FINALISE_PARTS,
  pipelineEnvironmentVariables,
  scheduleEnvironmentVariables,
  validateSettings,
  workQueueVisibilitySeconds,
} from '../../src/contract/index.ts';

describe('pipeline settings', () => {
  it('accepts the defaults and derives queue visibility and claim lease from them', () => {
    expect(validateSettings(DEFAULT_SETTINGS)).toBe(DEFAULT_SETTINGS);
    expect(workQueueVisibilitySeconds(DEFAULT_SETTINGS)).toBe(360);
    // A claim outlives a bureau call with its timeout, so a live call is never taken over.
    expect(claimLeaseSeconds(DEFAULT_SETTINGS)).toBeGreaterThan(DEFAULT_SETTINGS.bureauTimeoutSeconds);
  });

  it('names every problem of bad settings at once', () => {
    expect(() =>
      validateSettings({
        ...DEFAULT_SETTINGS,
        workerConcurrency: 1,
        maxReceiveCount: 3,
        workerTimeoutSeconds: 10,
        bureaus: bureausWith((bureau) => ({ rateLimitPerSecond: bureau === 'a' ? 0 : 1 })),
      }),
    ).toThrow(
      /bureaus\.a\.rateLimitPerSecond must be > 0; workerConcurrency must be a whole number ≥ 2.*workerTimeoutSeconds must be at least twice.*maxReceiveCount must be greater than maxAttempts/,
    );
  });

  it('refuses a price that is not whole centavos (quotes and spend count in centavos), and takes one that is', () => {
    expect(() =>
      validateSettings({ ...DEFAULT_SETTINGS, bureaus: bureausWith({ pricePerQuery: 0.004 }) }),
    ).toThrow('bureaus.a.pricePerQuery must be a price in BRL in whole centavos');
    expect(
      validateSettings({ ...DEFAULT_SETTINGS, bureaus: bureausWith({ pricePerQuery: 2.7 }) }).bureaus.b
        .pricePerQuery,
    ).toBe(2.7);
  });

  it('refuses a finalisation part larger than one invocation may hold, or empty', () => {
    for (const finalisePartRows of [0, 2.5, MAX_FINALISE_PART_ROWS + 1])
      expect(() => validateSettings({ ...DEFAULT_SETTINGS, finalisePartRows })).toThrow(
        `invalid pipeline settings: finalisePartRows must be a whole number from 1 to ${MAX_FINALISE_PART_ROWS}`,
      );
    expect(
      validateSettings({ ...DEFAULT_SETTINGS, finalisePartRows: MAX_FINALISE_PART_ROWS }).finalisePartRows,
    ).toBe(MAX_FINALISE_PART_ROWS);
    // A million rows in parts of 5: 200,000 parts for the join to list.
    expect(() => validateSettings({ ...DEFAULT_SETTINGS, finalisePartRows: 5 })).toThrow(
      `invalid pipeline settings: finalisePartRows must be at least maxRows / ${MAX_FINALISE_PARTS} (100), so a list is finalised in at most ${MAX_FINALISE_PARTS} parts`,
    );
    expect(
      validateSettings({ ...DEFAULT_SETTINGS, maxRows: 30_000, finalisePartRows: 3 }).finalisePartRows,
    ).toBe(3);
  });
});

describe('Lambda environment', () => {
  const complete = {
    PIPELINE_SETTINGS: JSON.stringify({ freshnessHours: 6 }),
    TABLE_NAME: 't',
    BUCKET_NAME: 'b',
    WORK_QUEUE_URL: 'https://q/work',
    FINALISE_QUEUE_URL: 'https://q/finalise',
    DISPATCH_QUEUE_URL: 'https://q/dispatch',
    EVENT_BUS_NAME: 'default',
    BUREAU_BASE_URL: 'https://gateway',
    BUREAU_TOKEN_SECRET_ID: 'arn:secret',
    AUDIT_KEY_SECRET_ID: 'arn:audit-key',
  };

  it('reads every setting once, settings merged over the defaults', () => {
    expect(readPipelineEnvironment(complete)).toMatchObject({
      tableName: 't',
      settings: { ...DEFAULT_SETTINGS, freshnessHours: 6 },
    });
  });

  it('fails loudly, naming a missing setting', () => {
    const { TABLE_NAME: _, ...missing } = complete;
    expect(() => readPipelineEnvironment(missing)).toThrow(
      'missing setting: environment variable TABLE_NAME is not set',
    );
    expect(() => requiredEnv('X', { X: ' ' })).toThrow('X is not set');
  });

  it('reads back exactly the environment the construct writes (one list of variable names)', () => {
    const locations = {
      tableName: 'table',
      bucketName: 'bucket',
      workQueueUrl: 'https://sqs/work',
      finaliseQueueUrl: 'https://sqs/finalise',
      dispatchQueueUrl: 'https://sqs/dispatch',
      eventBusName: 'bus',
      bureauBaseUrl: 'https://gateway',
      tokenSecretId: 'arn:aws:secretsmanager:sa-east-1:1:secret:token',
      auditKeySecretId: 'arn:aws:secretsmanager:sa-east-1:1:secret:audit',
    };
    const settings = { ...DEFAULT_SETTINGS, retentionDays: 30 };

    expect(readPipelineEnvironment(pipelineEnvironmentVariables(locations, settings))).toEqual({
      ...locations,
      settings,
    });
    const schedules = {
      groupName: 'group',
      targetArn: 'arn:aws:lambda:sa-east-1:1:function:ingest',
      roleArn: 'arn:aws:iam::1:role/scheduler',
    };
    expect(
      readScheduleEnvironment(
        scheduleEnvironmentVariables({ ...schedules, declaredPortfolios: ['carteira'] }),
      ),
    ).toEqual({ ...schedules, declaredPortfolios: new Set(['carteira']) });
  });

  it('refuses settings that do not validate', () => {
    expect(() => readPipelineEnvironment({ ...complete, PIPELINE_SETTINGS: '{"maxAttempts":0}' })).toThrow(
      'PIPELINE_SETTINGS is not valid',
    );
  });

  it('reads the portfolio-schedules settings, failing by name on what is missing or malformed', () => {
    const schedules = {
      SCHEDULE_GROUP_NAME: 'group',
      SCHEDULE_TARGET_ARN: 'arn:aws:lambda:us-east-1:1:function:ingest',
      SCHEDULE_ROLE_ARN: 'arn:aws:iam::1:role/scheduler',
      DECLARED_PORTFOLIOS: '["carteira"]',
    };

    expect(readScheduleEnvironment(schedules)).toEqual({
      groupName: 'group',
      targetArn: 'arn:aws:lambda:us-east-1:1:function:ingest',
      roleArn: 'arn:aws:iam::1:role/scheduler',
      declaredPortfolios: new Set(['carteira']),
    });
    expect(() => readScheduleEnvironment({ ...schedules, SCHEDULE_ROLE_ARN: '' })).toThrow(
      'SCHEDULE_ROLE_ARN is not set',
    );
    expect(() => readScheduleEnvironment({ ...schedules, DECLARED_PORTFOLIOS: '{}' })).toThrow(
      'DECLARED_PORTFOLIOS must be a JSON array',
    );
  });
});
