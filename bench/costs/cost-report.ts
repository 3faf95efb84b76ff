/**
 * docs/costs.md, from the measured usage (bench/costs/measured-usage.json) and the list prices
 * (bench/costs/aws-prices.ts): every figure is a measurement times a price, and the page says which.
 */
import {
  DEFAULT_SETTINGS,
  FUNCTION_MEMORY,
  functionArchitecture,
  type PipelineFunction,
  type PipelineSettings,
  SWEEP_INTERVAL_MINUTES,
} from '../../src/contract/index.ts';
import type { RegionPrices } from './aws-prices.ts';
import type { MeasuredUsage, ScenarioUsage } from './usage.ts';

const MILLION = 1_000_000;
const GB = 1_000_000_000;
const DAYS_PER_MONTH = 30;
/** An assumption, not a measurement: how long the bureau takes to answer one query. */
const BUREAU_LATENCY_SECONDS = 1.5;

/** A line of the per-million table: what it is, how it was counted, and its price in each region. */
interface CostLine {
  readonly item: string;
  readonly counted: string;
  readonly cost: (prices: RegionPrices) => number;
}

const fixed = (value: number, digits = 2) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const dollars = (value: number) => `${fixed(value)}`;

/** The contract's name of a function measured under its construct id (`DeadLetter` → `deadLetter`). */
const contractName = (name: string) => `${name[0]?.toLowerCase()}${name.slice(1)}` as PipelineFunction;

/** GB-seconds per document of each measured function, and what they cost on its processor. */
function lambdaLines(scenario: ScenarioUsage): CostLine[] {
  return Object.entries(scenario.functions).map(([name, usage]) => {
    const gbSeconds =
      ((usage.billedMilliseconds / 1000) * (usage.memoryMegabytes / 1024)) / scenario.documents;
    const arm = functionArchitecture(contractName(name)) === 'arm64';
    const invocations = usage.invocations / scenario.documents;
    return {
      item: `Lambda, ${name}`,
      counted: `${fixed(invocations, 3)} invocations and ${fixed(gbSeconds, 4)} GB-s per document (${usage.memoryMegabytes} MB, ${arm ? 'arm64' : 'x86_64'})`,
      cost: (prices) =>
        MILLION *
        (gbSeconds * (arm ? prices.lambdaArmPerGbSecond : prices.lambdaX86PerGbSecond) +
          (invocations * prices.lambdaRequestsPerMillion) / MILLION),
    };
  });
}

/**
 * What a worker is billed for waiting on the bureau, which answers here at once. Its wait for the rate limit is in
 * the measured durations: the measured stack runs at the rate its template sets.
 */
function bureauLatencyLine(settings: PipelineSettings): CostLine {
  const latencyGbSeconds =
    (BUREAU_LATENCY_SECONDS * (FUNCTION_MEMORY.worker / 1024)) / settings.callsPerInvocation;
  return {
    item: 'Lambda, Worker waiting on the bureau',
    counted: `assumed, not measured: ${BUREAU_LATENCY_SECONDS} s per answer, ${settings.callsPerInvocation} calls in flight per worker → ${fixed(latencyGbSeconds, 3)} GB-s per document`,
    cost: (prices) => MILLION * latencyGbSeconds * prices.lambdaX86PerGbSecond,
  };
}

/** Every line of the per-million table for one scenario. */
function costLines(usage: MeasuredUsage, scenario: ScenarioUsage, settings: PipelineSettings): CostLine[] {
  const request = scenario.perDocument;
  const retentionMonths = settings.retentionDays / DAYS_PER_MONTH;
  const auditMonths = settings.auditRetentionDays / DAYS_PER_MONTH;
  const tableGb = (usage.tableBytes / usage.documents / GB) * MILLION;
  const auditGb = (usage.auditBytes / usage.documents / GB) * MILLION;
  const bucketGb =
    (Object.values(usage.bucketBytes).reduce((sum, bytes) => sum + bytes, 0) / usage.documents / GB) *
    MILLION;
  const writes = request.dynamodbWriteUnits + request.dynamodbRefusedWrites;
  return [
    {
      item: 'DynamoDB writes',
      counted: `${fixed(request.dynamodbWriteUnits, 2)} write units per document, plus ${fixed(request.dynamodbRefusedWrites, 2)} refused conditional writes (1 unit each)`,
      cost: (prices) => writes * prices.dynamodbWritePerMillion,
    },
    {
      item: 'DynamoDB reads',
      counted: `${fixed(request.dynamodbReadUnits, 2)} read units per document`,
      cost: (prices) => request.dynamodbReadUnits * prices.dynamodbReadPerMillion,
    },
    {
      item: 'DynamoDB storage and backups',
      counted: `${fixed(usage.tableBytes / usage.documents / 1000, 2)} KB per document (rows, reports, purchases, batches) for ${settings.retentionDays} days, with point-in-time recovery`,
      cost: (prices) =>
        tableGb * retentionMonths * (prices.dynamodbStoragePerGbMonth + prices.dynamodbBackupPerGbMonth),
    },
    {
      item: 'Audit log storage and backups',
      counted: `${fixed(usage.auditBytes / usage.documents / 1000, 2)} KB per document for ${settings.auditRetentionDays} days, in the same table (so with point-in-time recovery)`,
      cost: (prices) =>
        auditGb * auditMonths * (prices.dynamodbStoragePerGbMonth + prices.dynamodbBackupPerGbMonth),
    },
    {
      item: 'S3 requests',
      counted: `${fixed(request.s3TierOneRequests, 3)} PUT/LIST and ${fixed(request.s3TierTwoRequests, 3)} GET per document`,
      cost: (prices) =>
        (MILLION / 1000) *
        (request.s3TierOneRequests * prices.s3TierOnePerThousand +
          request.s3TierTwoRequests * prices.s3TierTwoPerThousand),
    },
    {
      item: 'S3 storage',
      counted: `${fixed((bucketGb * GB) / MILLION / 1000, 2)} KB per document (raw answers, results, the list) for ${settings.retentionDays} days`,
      cost: (prices) => bucketGb * retentionMonths * prices.s3StoragePerGbMonth,
    },
    ...lambdaLines(scenario),
    bureauLatencyLine(settings),
    {
      item: 'SQS',
      counted: `${fixed(request.sqsRequests, 3)} requests per document (sends, receives that got messages, deletes)`,
      cost: (prices) => request.sqsRequests * prices.sqsPerMillion,
    },
    {
      item: 'EventBridge',
      counted: `${fixed(request.eventBridgeEvents, 4)} events per document`,
      cost: (prices) => request.eventBridgeEvents * prices.eventBridgePerMillion,
    },
  ];
}

function costTable(lines: readonly CostLine[], regions: readonly RegionPrices[]): string[] {
  const header = `| | measured | ${regions.map((region) => `${region.region} US$`).join(' | ')} |`;
  const rule = `|---|---|${regions.map(() => '---:').join('|')}|`;
  const rows = lines.map(
    (line) =>
      `| ${line.item} | ${line.counted} | ${regions.map((region) => dollars(line.cost(region))).join(' | ')} |`,
  );
  const totals = regions.map((region) => lines.reduce((sum, line) => sum + line.cost(region), 0));
  return [
    header,
    rule,
    ...rows,
    `| **total** | | ${totals.map((total) => `**${dollars(total)}**`).join(' | ')} |`,
  ];
}

/** What runs whether or not a batch does: the sweeper's schedule, the key, alarms and secrets. */
function fixedTable(usage: MeasuredUsage, regions: readonly RegionPrices[]): string[] {
  const { sweep } = usage;
  const sweepsPerMonth = (DAYS_PER_MONTH * 24 * 60) / SWEEP_INTERVAL_MINUTES;
  const sweepGbSeconds = (sweep.billedMilliseconds / 1000) * (sweep.memoryMegabytes / 1024);
  const monthly = (readUnits: number, gbSeconds: number) => (prices: RegionPrices) =>
    sweepsPerMonth *
    ((readUnits * prices.dynamodbReadPerMillion) / MILLION +
      gbSeconds * prices.lambdaArmPerGbSecond +
      prices.lambdaRequestsPerMillion / MILLION);
  const lines: CostLine[] = [
    {
      item: 'Sweeper',
      counted: `${sweepsPerMonth} sweeps a month; one over ${sweep.finishedBatches} finished batches read ${fixed(sweep.readUnits, 1)} units (a finished batch is listed, never read) in ${fixed(sweepGbSeconds, 3)} GB-s`,
      cost: monthly(sweep.readUnits, sweepGbSeconds),
    },
    {
      item: 'Sweeper, per batch running',
      counted: `${fixed(sweep.runningBatchReadUnits, 1)} more read units per sweep (its record, counters and claimed rows), while it runs`,
      cost: monthly(sweep.runningBatchReadUnits, 0),
    },
    {
      item: 'KMS keys',
      counted: `${usage.fixed.keys} customer-managed key (its requests are the services': data keys cached)`,
      cost: (prices) => usage.fixed.keys * prices.kmsKeyPerMonth,
    },
    {
      item: 'CloudWatch alarms',
      counted: `${usage.fixed.alarms} alarms in the template`,
      cost: (prices) => usage.fixed.alarms * prices.cloudWatchAlarmPerMonth,
    },
    {
      item: 'Secrets',
      counted: `${usage.fixed.secrets} secrets (bureau token, audit key)`,
      cost: (prices) => usage.fixed.secrets * prices.secretPerMonth,
    },
  ];
  return costTable(lines, regions).slice(0, -1);
}

/** The whole page. */
export function renderCostsDoc(
  usage: MeasuredUsage,
  regions: readonly RegionPrices[],
  settings: PipelineSettings = DEFAULT_SETTINGS,
): string {
  const { withPolicy, withoutPolicy } = usage.scenarios;
  const total = (scenario: ScenarioUsage, region: RegionPrices) =>
    costLines(usage, scenario, settings).reduce((sum, line) => sum + line.cost(region), 0);
  const totals = regions
    .map(
      (region) =>
        `**US$ ${dollars(total(withPolicy, region))}** in ${region.region} (${region.name}; ${dollars(total(withoutPolicy, region))} without a policy)`,
    )
    .join(' and ');
  return [
    '# What screening costs, measured',
    '',
    '[← README](../README.md)',
    '',
    `Per **1,000,000 documents** screened (unique, valid, none reused), with the construct's defaults, measured on`,
    `${usage.measuredOn} by \`test/deployment/measured-costs.test.ts\`: the bundled functions from \`cdk.out\` screen`,
    `two batches of ${withPolicy.documents} documents (one without a policy, one decided by \`pessoa-fisica.json\`) against`,
    'DynamoDB Local and fauxqs, behind endpoints that record every AWS call. DynamoDB reports the capacity each call',
    'consumed (`ReturnConsumedCapacity`), but for transactions of several items, which DynamoDB Local under-reports:',
    'their units are counted from their items, two per KB of each, as AWS bills them. S3, SQS and EventBridge',
    'calls are counted, Lambda durations are timed per invocation on this machine, and what is stored is summed',
    'item by item and object by object. Prices are the list prices in `bench/costs/aws-prices.ts`. The test fails',
    'when a figure drifts more than a tenth from the committed measurement; to measure again and rewrite this page:',
    '',
    '```sh',
    'UPDATE_COST_MEASUREMENT=1 npx vitest run test/deployment/measured-costs.test.ts && npm run costs',
    '```',
    '',
    `In all: ${totals} per million documents, over the data's whole life.`,
    '',
    '## The bureau dwarfs everything',
    '',
    'Public price lists put one bureau query between **R$ 2.70 and R$ 8.40**: a million queries cost R$ 2,700,000 to',
    'R$ 8,400,000. The whole AWS bill below is a few hundredths of a percent of that. One query saved (a duplicate',
    'caught, a retry not paid twice, a report reused within the freshness window) pays for the infrastructure of',
    'thousands of documents: the pipeline spends DynamoDB writes freely on its one-purchase bookkeeping.',
    '',
    '## Per million documents, decided by a policy',
    '',
    ...costTable(costLines(usage, withPolicy, settings), regions),
    '',
    "Lambda durations are this machine's (two cores), at the rate limit the template sets: workers wait for their",
    'turn inside their invocations and are billed for it. Per-batch work (one ingest, one finalisation, the list',
    `and the result files) is spread over ${withPolicy.documents} documents here, over far more in a real batch. The bureau emulator`,
    'answers at once, so the time a worker waits on the real bureau is the one line assumed rather than measured.',
    '',
    '## Per million documents, without a policy',
    '',
    ...costTable(costLines(usage, withoutPolicy, settings), regions),
    '',
    '## Every month, screening or not',
    '',
    ...fixedTable(usage, regions),
    '',
    "Lambda's SQS pollers also make empty receive requests on the four queues while they are idle, a fixed cost of",
    'about a dollar a month, and services call KMS for data keys they cache for minutes (SQS, S3 bucket keys,',
    'DynamoDB), a few thousand requests a month: cents.',
    '',
  ].join('\n');
}
