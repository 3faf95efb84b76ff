import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DocumentRequests,
  MEASURED_USAGE_PATH,
  type MeasuredUsage,
  type ScenarioUsage,
} from '../../bench/costs/usage.ts';
import { readCloudAssembly } from '../../cli/local/cloud-assembly.ts';
import { SeededRandom } from '../../emulator/seeded-random.ts';
import { dynamoDbBatchStores } from '../../src/adapters/aws/dynamodb-batch-store.ts';
import { queuedRows } from '../factories/batch-records.ts';
import { distinctDocuments } from '../factories/customer-lists.ts';
import { DeployedStack } from './deployed-stack.ts';
import { CDK_OUT, manifestOf, synthesizeIfMissing, uploadList } from './deployed-uploads.ts';
import { itemSizes, requestsPerDocument, storedBytes, UsageMeter } from './usage-meter.ts';

/** Documents per measured batch: enough that per-batch costs (the list, the results) weigh as little as they do. */
const DOCUMENTS = 60;
/** `UPDATE_COST_MEASUREMENT=1` writes the measurement that docs/costs.md is generated from. */
const UPDATE = process.env.UPDATE_COST_MEASUREMENT === '1';

let deployed: DeployedStack;
let meter: UsageMeter;
const measured: Partial<Record<keyof MeasuredUsage['scenarios'], ScenarioUsage>> = {};

beforeAll(async () => {
  synthesizeIfMissing();
  const random = new SeededRandom('measured-costs');
  deployed = await DeployedStack.start(readCloudAssembly(CDK_OUT), { emulatorRandom: () => random.next() });
  await deployed.stack.clients.s3.send(
    new PutObjectCommand({
      Bucket: deployed.stack.resources.bucketName,
      Key: 'policies/pessoa-fisica.json',
      Body: readFileSync('samples/policies/pessoa-fisica.json'),
    }),
  );
  deployed.startEventSources();
  meter = new UsageMeter(deployed);
}, 120_000);

afterAll(async () => {
  await deployed?.stop();
});

/** Screens a list of distinct documents, none reused, and reads what its whole life used. */
async function measureBatch(seed: string, metadata: Record<string, string> = {}): Promise<ScenarioUsage> {
  meter.read();
  const batchId = await uploadList(deployed, distinctDocuments(DOCUMENTS, seed), metadata);
  const manifest = await manifestOf(deployed, batchId);
  expect(manifest.counts).toMatchObject({ rows: DOCUMENTS, screened: DOCUMENTS, failed: 0 });
  await finaliserDone(batchId);
  const { calls, functions } = meter.read();
  const sizes = await itemSizes(deployed);
  return { documents: DOCUMENTS, perDocument: requestsPerDocument(calls, DOCUMENTS, sizes), functions };
}

/**
 * Waits for what the finaliser does after the manifest (completing the batch, announcing it) and for its
 * invocation to end and its message to be deleted, so that the next batch's measurement does not take them.
 */
async function finaliserDone(batchId: string): Promise<void> {
  const finaliser = deployed.function('Finalise').process;
  await expect
    .poll(
      () =>
        deployed.fakes.events.some(
          (event) =>
            event.DetailType === 'BatchCompleted' && JSON.parse(event.Detail ?? '{}').batchId === batchId,
        ),
      { timeout: 30_000 },
    )
    .toBe(true);
  await expect.poll(() => finaliser.busy, { timeout: 30_000 }).toBe(false);
  // The event source deletes the message once the invocation has answered.
  await new Promise((resolve) => setTimeout(resolve, 500));
}

/**
 * How far a figure may drift from the committed one before the page must be regenerated: a tenth, but for what
 * depends on how workers race: refused conditional writes (claims, rate reservations: 0.4 to 0.7 per document in
 * repeated runs here; half a write unit is a third of a dollar per million) and reads (the token probe's polls:
 * 4.1 to 4.6 per document), given a fifth.
 */
const toleranceOf = (name: keyof DocumentRequests, expected: number): number => {
  if (name === 'dynamodbRefusedWrites') return 0.5;
  return Math.max(0.05, expected * (name === 'dynamodbReadUnits' ? 0.2 : 0.1));
};

/**
 * The bundled sweeper run as its schedule runs it: over the finished batches the stack has, then again with one
 * more batch running (its last queued row keeps it from finishing).
 */
async function measureSweep(): Promise<MeasuredUsage['sweep']> {
  const store = dynamoDbBatchStores({
    client: deployed.stack.clients.dynamo,
    tableName: deployed.stack.resources.tableName,
    retentionDays: deployed.settings.retentionDays,
  });
  const finishedBatches = (await store.batchRecords.listBatches(1000)).length;
  const sweep = async () => {
    meter.read();
    await deployed.function('Sweeper').process.invoke({});
    const { calls, functions } = meter.read();
    const readUnits = calls
      .filter((call) => call.service === 'dynamodb')
      .reduce((sum, call) => sum + (call.capacityUnits ?? 0), 0);
    return { readUnits, usage: functions.Sweeper };
  };
  const finished = await sweep();
  const running = `running-${randomUUID()}`;
  await store.batchRecords.createBatch({
    batchId: running,
    sourceBucket: deployed.stack.resources.bucketName,
    sourceKey: 'incoming/a/running.csv',
    bureau: 'a',
    excelSummary: false,
  });
  // Seventeen rows, sixteen of them settled (one per counter shard, as a real batch's settles spread), one queued.
  await store.batchRows.writeRows(running, queuedRows(17, running));
  const totals = { rows: 17, invalid: 0, duplicates: 0, toScreen: 17, cached: 0 };
  await store.batchRecords.finishIngest(running, totals);
  for (let row = 1; row <= 16; row++)
    await store.batchRows.withholdQueuedRow(running, row, { outcome: 'cancelled', reason: 'measured' });
  const withRunning = await sweep();
  if (finished.usage === undefined) throw new Error('the sweeper did not run');
  return {
    finishedBatches,
    readUnits: finished.readUnits,
    runningBatchReadUnits: withRunning.readUnits - finished.readUnits,
    memoryMegabytes: finished.usage.memoryMegabytes,
    billedMilliseconds: finished.usage.billedMilliseconds,
  };
}

/** The template's resources billed by the month: alarms, secrets, keys. */
function fixedResources(): MeasuredUsage['fixed'] {
  const resources = Object.values(deployed.assembly.template.Resources);
  const count = (type: string) => resources.filter((resource) => resource.Type === type).length;
  return {
    alarms: count('AWS::CloudWatch::Alarm'),
    secrets: count('AWS::SecretsManager::Secret'),
    keys: count('AWS::KMS::Key'),
  };
}

describe('what screening uses of AWS, measured on the bundled functions', () => {
  it('a batch without a policy', async () => {
    measured.withoutPolicy = await measureBatch('costs without policy');

    expect(measured.withoutPolicy.perDocument.dynamodbWriteUnits).toBeGreaterThan(1);
    expect(measured.withoutPolicy.functions.Worker?.invocations).toBeGreaterThan(0);
  }, 120_000);

  it('a batch decided by a policy', async () => {
    measured.withPolicy = await measureBatch('costs with policy', { policy: 'pessoa-fisica.json' });

    // The decision is written with the row and audited: a policy costs more writes than no policy.
    expect(measured.withPolicy.perDocument.dynamodbWriteUnits).toBeGreaterThan(
      measured.withoutPolicy?.perDocument.dynamodbWriteUnits ?? 0,
    );
  }, 120_000);

  it('stays within a tenth of the committed measurement that docs/costs.md is generated from (races aside)', async () => {
    const { withoutPolicy, withPolicy } = measured;
    if (withoutPolicy === undefined || withPolicy === undefined) throw new Error('a scenario did not run');
    const usage: MeasuredUsage = {
      measuredOn: new Date().toISOString().slice(0, 10),
      scenarios: { withoutPolicy, withPolicy },
      documents: 2 * DOCUMENTS,
      ...(await storedBytes(deployed)),
      sweep: await measureSweep(),
      fixed: fixedResources(),
    };
    if (UPDATE) writeFileSync(MEASURED_USAGE_PATH, `${JSON.stringify(usage, null, 2)}\n`);
    const committed = JSON.parse(readFileSync(MEASURED_USAGE_PATH, 'utf8')) as MeasuredUsage;

    const drift = (['withoutPolicy', 'withPolicy'] as const).flatMap((scenario) =>
      Object.entries(usage.scenarios[scenario].perDocument).flatMap(([name, value]) => {
        const expected = committed.scenarios[scenario].perDocument[name as keyof DocumentRequests];
        return Math.abs(value - expected) <= toleranceOf(name as keyof DocumentRequests, expected)
          ? []
          : [`${scenario}.${name}: measured ${value}, committed ${expected}`];
      }),
    );
    expect(drift, 'regenerate with UPDATE_COST_MEASUREMENT=1, then npm run costs').toEqual([]);
    expect(usage.tableBytes / usage.documents).toBeCloseTo(committed.tableBytes / committed.documents, -2);
  });
});
