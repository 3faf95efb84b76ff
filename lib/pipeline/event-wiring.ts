import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3n from 'aws-cdk-lib/aws-s3-notifications';
import type { Construct } from 'constructs';
import {
  eventSourceSpecs,
  type PipelineSettings,
  S3_LAYOUT,
  SWEEP_INTERVAL_MINUTES,
} from '../../src/contract/index.ts';
import type { PipelineFunctions } from './functions.ts';
import type { PipelineQueues } from './queues.ts';

/** Every few minutes the sweeper runs. A missed sweep is made up by the next one: no retries, never two at once. */
export function scheduleSweeps(scope: Construct, sweeper: PipelineFunctions['sweeper']): void {
  new events.Rule(scope, 'SweepSchedule', {
    description: 'credit-screen: queue again rows left stuck in a claim',
    schedule: events.Schedule.rate(Duration.minutes(SWEEP_INTERVAL_MINUTES)),
    targets: [new eventTargets.LambdaFunction(sweeper, { retryAttempts: 0 })],
  });
}

/**
 * An upload under `incoming/` starts ingest, one under `policies/` its check; the queues feed their functions as the
 * contract's event sources say.
 */
export function wireEventSources(
  functions: PipelineFunctions,
  options: {
    readonly bucket: s3.Bucket;
    readonly queues: PipelineQueues;
    readonly settings: PipelineSettings;
  },
): void {
  options.bucket.addEventNotification(
    s3.EventType.OBJECT_CREATED,
    new s3n.LambdaDestination(functions.ingest),
    { prefix: S3_LAYOUT.incoming },
  );
  options.bucket.addEventNotification(
    s3.EventType.OBJECT_CREATED,
    new s3n.LambdaDestination(functions.policyCheck),
    { prefix: S3_LAYOUT.policies },
  );
  for (const source of eventSourceSpecs(options.settings)) {
    functions[source.function].addEventSource(
      new SqsEventSource(options.queues[source.queue], {
        batchSize: source.batchSize,
        maxBatchingWindow:
          source.batchingWindowSeconds > 0 ? Duration.seconds(source.batchingWindowSeconds) : undefined,
        maxConcurrency: source.maxConcurrency,
        reportBatchItemFailures: source.reportBatchItemFailures,
      }),
    );
  }
}
