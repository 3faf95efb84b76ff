import { RemovalPolicy } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SETTINGS,
  FINALISE_PARTS_EXPIRY_DAYS,
  FUNCTION_MEMORY,
  type PipelineSettings,
} from '../../src/contract/index.ts';
import { synthesizeStack } from '../factories/synthesized-stack.ts';

/** A value for every setting, each different from its default, so an ignored one shows. */
const EVERY_SETTING: PipelineSettings = {
  defaultBureau: 'b',
  bureaus: {
    a: { rateLimitPerSecond: 21, rateLimitBurst: 3, pricePerQuery: 2.7, monthlyChargeCap: 50_000 },
    b: { rateLimitPerSecond: 22, rateLimitBurst: 4, pricePerQuery: 5.15, monthlyChargeCap: null },
  },
  approvalThreshold: 250,
  workerConcurrency: 6,
  callsPerInvocation: 3,
  workerBatchSize: 7,
  workerBatchingWindowSeconds: 4,
  fairQueues: false,
  freshnessHours: 12,
  retentionDays: 45,
  maxAttempts: 4,
  bureauTimeoutSeconds: 15,
  rebuyChargeUnknown: true,
  maxReportBytes: 512 * 1024,
  workerTimeoutSeconds: 45,
  maxReceiveCount: 8,
  excelSummary: true,
  maxRows: 5000,
  finalisePartRows: 20_000,
  scoreChangePoints: 70,
  portfolioSchedule: 'rate(3 days)',
  reportLanguage: 'en',
  defaultPolicy: 'pessoa-juridica.json',
  queryPurpose: 'concessão de crédito a PMEs',
  legalBasis: 'LGPD art. 7º, V (execução de contrato)',
  auditRetentionDays: 3650,
  alertChangeKinds: ['new_protest', 'bounced_cheques_up'],
  alertWorstChanges: 25,
  alertFullDocuments: true,
  reviewSla: { defaultHours: 8, hoursByPolicy: { 'pessoa-juridica.json': 48 } },
};

/** The settings the construct takes as props of their own, and the rest, which go in its `settings` prop. */
const {
  bureaus,
  workerConcurrency,
  callsPerInvocation,
  freshnessHours,
  retentionDays,
  excelSummary,
  defaultBureau,
  portfolioSchedule,
  scoreChangePoints,
  reportLanguage,
  rebuyChargeUnknown,
  ...THE_OTHERS
} = EVERY_SETTING;
const OWN_PROPS = {
  rebuyChargeUnknown,
  bureaus,
  workerConcurrency,
  callsPerInvocation,
  freshnessHours,
  retentionDays,
  excelSummary,
  defaultBureau,
  portfolioSchedule,
  scoreChangePoints,
  reportLanguage,
};

/** The PIPELINE_SETTINGS every function receives (the same for all of them). */
function deployedSettings(template: Template): unknown[] {
  return Object.values(template.findResources('AWS::Lambda::Function'))
    .map((fn) => fn.Properties.Environment?.Variables?.PIPELINE_SETTINGS as string | undefined)
    .filter((value) => value !== undefined)
    .map((value) => JSON.parse(value));
}

describe('CreditScreenPipeline props', () => {
  it('covers every setting with a non-default value in these tests', () => {
    expect(Object.keys(EVERY_SETTING).sort()).toEqual(Object.keys(DEFAULT_SETTINGS).sort());
    for (const [name, value] of Object.entries(EVERY_SETTING))
      expect(value, name).not.toEqual(DEFAULT_SETTINGS[name as keyof PipelineSettings]);
  });

  it('honours every setting through its one route (its own prop, or the settings prop): each reaches the functions and the resources it shapes', () => {
    const { template } = synthesizeStack({
      ...OWN_PROPS,
      settings: THE_OTHERS,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const settings = deployedSettings(template);
    expect(settings).toHaveLength(Object.keys(FUNCTION_MEMORY).length);
    for (const deployed of settings) expect(deployed).toEqual(EVERY_SETTING);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 7,
      MaximumBatchingWindowInSeconds: 4,
      ScalingConfig: { MaximumConcurrency: 6 },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Timeout: 45,
      Environment: { Variables: { PIPELINE_SETTINGS: JSON.stringify(EVERY_SETTING) } },
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 45 * 6,
      RedrivePolicy: { maxReceiveCount: 8 },
    });
    const expirations = Object.values(template.findResources('AWS::S3::Bucket')).flatMap(
      (resource) =>
        (resource.Properties.LifecycleConfiguration?.Rules ?? []) as { ExpirationInDays?: number }[],
    );
    expect(
      expirations.filter((rule) => rule.ExpirationInDays !== undefined).map((rule) => rule.ExpirationInDays),
    ).toEqual([45, 45, 45, 45, 45, FINALISE_PARTS_EXPIRY_DAYS]); // the access logs, then incoming/, raw/, results/,
    // work/, and the finalisation parts, which go sooner whatever the retention
    for (const type of ['AWS::S3::Bucket', 'AWS::DynamoDB::Table', 'AWS::KMS::Key', 'AWS::Logs::LogGroup'])
      for (const resource of Object.values(template.findResources(type)))
        expect(resource.DeletionPolicy, type).toBe('Delete');
  });

  it.each(Object.keys(OWN_PROPS))(
    'refuses %s given both as its prop and in settings, in one line at synth',
    (name) => {
      const both = {
        ...OWN_PROPS,
        settings: { ...THE_OTHERS, [name]: EVERY_SETTING[name as keyof PipelineSettings] },
      };

      expect(() => synthesizeStack(both as never)).toThrow(
        new Error(`CreditScreenPipeline: ${name} is a prop of its own; give it as the prop, not in settings`),
      );
    },
  );

  it('defaults the burst to one second of the rate when a bureau gives no burst', () => {
    const { template } = synthesizeStack({ bureaus: { a: { rateLimitPerSecond: 25 } } });
    for (const deployed of deployedSettings(template))
      expect(deployed).toMatchObject({ bureaus: { a: { rateLimitBurst: 25 }, b: { rateLimitBurst: 10 } } });
  });

  it('refuses a bureau the registry does not know, in one line at synth', () => {
    expect(() => synthesizeStack({ bureaus: { c: { rateLimitPerSecond: 5 } } } as never)).toThrow(
      /^CreditScreenPipeline: bureaus: unknown bureau c \(known: a, b\)$/,
    );
  });
});
