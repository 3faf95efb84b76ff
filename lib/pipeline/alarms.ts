import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import {
  type PipelineQueue,
  type PipelineSettings,
  queueSpecs,
  SPENDING_CAP_ALERT,
  SWEEP_INTERVAL_MINUTES,
} from '../../src/contract/index.ts';
import type { PipelineFunctions } from './functions.ts';
import type { PipelineQueues } from './queues.ts';

/** Over how many periods an alarm looks, in how many of them its metric must be above the threshold, and which. */
interface AlarmOptions {
  /** @default 1 */
  readonly evaluationPeriods?: number;
  /** @default 1 */
  readonly datapointsToAlarm?: number;
  /** @default 0 */
  readonly threshold?: number;
}

/** Makes an alarm that fires when its metric is above a threshold (0 unless told), notifying the topic when there is one. */
export type AlarmFactory = (
  name: string,
  metric: cloudwatch.IMetric,
  description: string,
  options?: AlarmOptions,
) => cloudwatch.Alarm;

const minutes = (count: number) => Duration.minutes(count);

/** Makes the pipeline's alarms: above 0 fires, missing data does not, the topic (when given) is told. */
export function alarmFactory(scope: Construct, alarmTopic: sns.ITopic | undefined): AlarmFactory {
  return (name, metric, description, options = {}) => {
    const created = new cloudwatch.Alarm(scope, name, {
      metric,
      threshold: options.threshold ?? 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      datapointsToAlarm: options.datapointsToAlarm ?? 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    if (alarmTopic) created.addAlarmAction(new cloudwatchActions.SnsAction(alarmTopic));
    return created;
  };
}

/**
 * Alarms on dead letters, failing functions, rows stuck in a claim, messages near their expiry, and spending caps at
 * 80 % and 100 %.
 */
export function createAlarms(
  scope: Construct,
  resources: {
    readonly functions: PipelineFunctions;
    readonly queues: PipelineQueues;
    readonly settings: PipelineSettings;
    readonly alarmTopic?: sns.ITopic;
  },
): readonly cloudwatch.Alarm[] {
  const { functions, queues } = resources;
  const alarm = alarmFactory(scope, resources.alarmTopic);
  const deadLetters = (queue: PipelineQueues['work']) =>
    queue.metricApproximateNumberOfMessagesVisible({ period: minutes(1), statistic: 'Maximum' });
  return [
    alarm(
      'WorkDeadLettersAlarm',
      deadLetters(queues.workDeadLetter),
      'Work messages reached the dead-letter queue: rows are being settled as failed.',
    ),
    alarm(
      'FinaliseDeadLettersAlarm',
      deadLetters(queues.finaliseDeadLetter),
      'A batch could not be finalised: its results are missing.',
    ),
    alarm(
      'DispatchDeadLettersAlarm',
      deadLetters(queues.dispatchDeadLetter),
      'A part of a batch could not be dispatched: its queued rows have no work message. Redrive the message from the dispatch dead-letter queue (a repeated dispatch buys nothing twice).',
    ),
    alarm(
      'WorkerErrorsAlarm',
      functions.worker.metricErrors({ period: minutes(5) }),
      'Worker invocations are failing.',
    ),
    alarm(
      'IngestErrorsAlarm',
      functions.ingest.metricErrors({ period: minutes(5) }),
      'Uploads are failing to ingest.',
    ),
    ...logAlarms(scope, alarm, functions),
    ...oldestMessageAlarms(alarm, queues, resources.settings),
    alarm(
      'SweeperErrorsAlarm',
      functions.sweeper.metricErrors({ period: minutes(SWEEP_INTERVAL_MINUTES) }),
      'The sweeper is failing: stuck rows are not being queued again.',
    ),
    alarm(
      'PortfolioSchedulesErrorsAlarm',
      functions.portfolioSchedules.metricErrors({ period: minutes(5) }),
      'Portfolio schedules are not being updated from their files.',
    ),
  ];
}

/** Alarms on what the functions log: rows the sweeper queued again, and spending caps reached. */
function logAlarms(scope: Construct, alarm: AlarmFactory, functions: PipelineFunctions): cloudwatch.Alarm[] {
  const stuckRows = new logs.MetricFilter(scope, 'StuckRowsRequeued', {
    logGroup: functions.sweeper.logGroup,
    // The sweeper logs each sweep's figures (`sweep done`); a sweep that found nothing counts 0.
    filterPattern: logs.FilterPattern.numberValue('$.requeued', '>=', 0),
    metricNamespace: 'credit-screen',
    metricName: 'StuckRowsRequeued',
    metricValue: '$.requeued',
  });
  const budgetAlerts = (percent: 80 | 100) =>
    new logs.MetricFilter(scope, `BudgetAlerts${percent}`, {
      logGroup: functions.worker.logGroup,
      // The worker logs one line when a reservation takes a cap (a batch's or a month's) to this share.
      filterPattern: logs.FilterPattern.all(
        logs.FilterPattern.stringValue('$.message', '=', SPENDING_CAP_ALERT),
        logs.FilterPattern.numberValue('$.percent', '=', percent),
      ),
      metricNamespace: 'credit-screen',
      metricName: `BudgetAlerts${percent}`,
      metricValue: '1',
    });
  return [
    alarm(
      'StuckRowsAlarm',
      stuckRows.metric({ period: minutes(SWEEP_INTERVAL_MINUTES), statistic: 'Sum' }),
      'Rows keep getting stuck in a claim with no message left (the sweeper queued some again in two of the last three sweeps): look for what deletes work messages or ends workers early.',
      { evaluationPeriods: 3, datapointsToAlarm: 2 },
    ),
    ...([80, 100] as const).map((percent) =>
      alarm(
        percent === 100 ? 'BudgetExhaustedAlarm' : 'BudgetAt80PercentAlarm',
        budgetAlerts(percent).metric({ period: minutes(5), statistic: 'Sum' }),
        percent === 100
          ? 'A spending cap was reached: rows left are settled not_queried (budget exhausted).'
          : 'A spending cap is 80 % used.',
      ),
    ),
  ];
}

/** What each queue's oldest-message alarm says: what is waiting, and what is lost if no one acts. */
const EXPIRING_MESSAGES: Readonly<Record<PipelineQueue, readonly [string, string]>> = {
  work: [
    'WorkQueueOldestMessageAlarm',
    'Rows have waited in the work queue for half its retention, longer than any batch is quoted to run: the workers are not consuming it (a paused or stuck batch), or a batch was approved although its quote said it was too long.',
  ],
  workDeadLetter: [
    'WorkDeadLettersExpiringAlarm',
    'Dead work messages have waited half the retention: redrive or settle them before SQS deletes them.',
  ],
  finalise: [
    'FinaliseQueueOldestMessageAlarm',
    'A finalisation has waited half the finalise queue retention: a batch is not being finalised.',
  ],
  finaliseDeadLetter: [
    'FinaliseDeadLettersExpiringAlarm',
    'A dead finalise message has waited half the retention: finalise that batch before SQS deletes it.',
  ],
  dispatch: [
    'DispatchQueueOldestMessageAlarm',
    'A dispatch has waited half the dispatch queue retention: the dispatcher is not consuming it, and rows of an approved batch have no work message.',
  ],
  dispatchDeadLetter: [
    'DispatchDeadLettersExpiringAlarm',
    'A dead dispatch message has waited half the retention: redrive it before SQS deletes it.',
  ],
};

/** One alarm per queue on the age of its oldest message, at the share of its retention the contract sets. */
function oldestMessageAlarms(
  alarm: AlarmFactory,
  queues: PipelineQueues,
  settings: PipelineSettings,
): cloudwatch.Alarm[] {
  const specs = queueSpecs(settings);
  return (Object.keys(EXPIRING_MESSAGES) as PipelineQueue[]).map((name) => {
    const [id, description] = EXPIRING_MESSAGES[name];
    return alarm(
      id,
      queues[name].metricApproximateAgeOfOldestMessage({ period: minutes(15), statistic: 'Maximum' }),
      description,
      { threshold: specs[name].oldestMessageAlarmSeconds },
    );
  });
}
