import { type AttributeValue, ScanCommand } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { FunctionUsage, MeasuredUsage } from '../../bench/costs/usage.ts';
import { AUDIT_KEY_PREFIX } from '../../src/contract/index.ts';
import type { DeployedStack } from './deployed-stack.ts';
import type { RecordedCall } from './recording-proxy.ts';

const DYNAMODB_WRITES = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);
/** S3's first request tier (PUT, COPY, POST, LIST); every other request is in the second (GET and the rest). */
const S3_TIER_ONE = new Set([
  'PutObject',
  'CopyObject',
  'CreateMultipartUpload',
  'UploadPart',
  'CompleteMultipartUpload',
  'ListObjectsV2',
  'ListObjectVersions',
  'ListParts',
  'ListMultipartUploads',
]);

/** Where the meter starts: how many calls and invocations each function had made. */
interface Mark {
  readonly calls: ReadonlyMap<string, number>;
  readonly invocations: ReadonlyMap<string, number>;
}

/**
 * Counts what the bundled functions of a {@link DeployedStack} use between two points: every AWS call they made
 * (as their recording endpoints saw it, with the capacity DynamoDB reported), and every invocation's duration.
 */
export class UsageMeter {
  #mark: Mark;

  constructor(private readonly deployed: DeployedStack) {
    this.#mark = this.#now();
  }

  #now(): Mark {
    const entries = [...this.deployed.functions.values()];
    return {
      calls: new Map(entries.map(({ definition, proxy }) => [definition.logicalId, proxy.calls.length])),
      invocations: new Map(
        entries.map(({ definition, process }) => [definition.logicalId, process.invocationDurations.length]),
      ),
    };
  }

  /** What was used since the meter was made or last read, per function and in all. */
  read(): { readonly calls: RecordedCall[]; readonly functions: Record<string, FunctionUsage> } {
    const mark = this.#mark;
    this.#mark = this.#now();
    const calls: RecordedCall[] = [];
    const functions: Record<string, FunctionUsage> = {};
    for (const { definition, proxy, process } of this.deployed.functions.values()) {
      calls.push(...proxy.calls.slice(mark.calls.get(definition.logicalId) ?? 0));
      const durations = process.invocationDurations.slice(mark.invocations.get(definition.logicalId) ?? 0);
      if (durations.length === 0) continue;
      const name = definition.logicalId.replace(/^Pipeline/, '').replace(/[0-9A-F]{8}$/, '');
      functions[name] = {
        memoryMegabytes: definition.memorySize,
        invocations: durations.length,
        // Lambda bills each invocation's duration rounded up to the millisecond.
        billedMilliseconds: durations.reduce((sum, ms) => sum + Math.ceil(ms), 0),
      };
    }
    return { calls, functions };
  }
}

/** An item's key as {@link itemSizes} keys it. */
const keyOf = (key: Record<string, AttributeValue> | undefined) =>
  `${key?.pk?.S ?? ''}\u0000${key?.sk?.S ?? ''}`;

/**
 * The write units of a transaction as AWS bills them: two per KB of each item it writes. DynamoDB Local reports
 * far less for a transaction of several items (6 for four items of which two are 1.8 KB puts, where AWS bills
 * 12), so they are counted from the items: a put's from its item, an update's or a condition's from the item's
 * size in the table after the batch (what an update leaves is at least what it found, for the pipeline's items).
 */
function transactionWriteUnits(call: RecordedCall, sizes: ReadonlyMap<string, number>): number {
  const items = (call.input.TransactItems ?? []) as {
    Put?: { Item: Record<string, AttributeValue> };
    Update?: { Key: Record<string, AttributeValue> };
    Delete?: { Key: Record<string, AttributeValue> };
    ConditionCheck?: { Key: Record<string, AttributeValue> };
  }[];
  return items.reduce((units, item) => {
    const key = item.Update?.Key ?? item.Delete?.Key ?? item.ConditionCheck?.Key;
    const bytes = item.Put ? itemBytes(item.Put.Item) - STORAGE_OVERHEAD : (sizes.get(keyOf(key)) ?? 0);
    return units + 2 * Math.max(1, Math.ceil(bytes / 1024));
  }, 0);
}

/** Each item's size in the table now, as capacity is counted (without the storage overhead), by key. */
export async function itemSizes(deployed: DeployedStack): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  await scanTable(deployed, (item) => sizes.set(keyOf(item), itemBytes(item) - STORAGE_OVERHEAD));
  return sizes;
}

/**
 * The requests of a set of calls, by what each service charges for, over `documents` documents; `sizes`
 * ({@link itemSizes}) counts the transactions' write units.
 */
export function requestsPerDocument(
  calls: readonly RecordedCall[],
  documents: number,
  sizes: ReadonlyMap<string, number>,
) {
  const per = (count: number) => count / documents;
  const dynamodb = calls
    .filter((call) => call.service === 'dynamodb' && call.capacityUnits !== undefined)
    .map((call) =>
      call.operation === 'TransactWriteItems' && call.status < 300
        ? { ...call, capacityUnits: transactionWriteUnits(call, sizes) }
        : call,
    );
  const writes = dynamodb.filter((call) => DYNAMODB_WRITES.has(call.operation));
  const s3 = calls.filter((call) => call.service === 's3');
  // An empty poll is the event source's, paid whether or not a batch runs: a fixed cost, not a document's.
  const sqs = calls.filter((call) => call.service === 'sqs' && call.received !== 0);
  const events = calls.filter((call) => call.service === 'events' && call.operation === 'PutEvents');
  return {
    dynamodbWriteUnits: per(writes.reduce((sum, call) => sum + (call.capacityUnits ?? 0), 0)),
    // A refused conditional write is billed as a write; DynamoDB reports no capacity for it.
    dynamodbRefusedWrites: per(writes.filter((call) => call.status >= 400).length),
    dynamodbReadUnits: per(
      dynamodb
        .filter((call) => !DYNAMODB_WRITES.has(call.operation))
        .reduce((sum, call) => sum + (call.capacityUnits ?? 0), 0),
    ),
    s3TierOneRequests: per(s3.filter((call) => S3_TIER_ONE.has(call.operation)).length),
    s3TierTwoRequests: per(s3.filter((call) => !S3_TIER_ONE.has(call.operation)).length),
    sqsRequests: per(sqs.length),
    eventBridgeEvents: per(
      events.reduce((sum, call) => sum + ((call.input.Entries as unknown[] | undefined)?.length ?? 0), 0),
    ),
  };
}

/** What DynamoDB adds to each item's size for its storage (not for its capacity). */
const STORAGE_OVERHEAD = 100;

/** An item's size as DynamoDB bills its storage: names and values, plus 100 bytes of overhead. */
function itemBytes(item: Record<string, AttributeValue>): number {
  let bytes = STORAGE_OVERHEAD;
  for (const [name, value] of Object.entries(item)) bytes += Buffer.byteLength(name) + valueBytes(value);
  return bytes;
}

function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return Math.ceil(value.N.replace(/[-.]|^0+/g, '').length / 2) + 1;
  if (value.B !== undefined) return value.B.length;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.L !== undefined) return 3 + value.L.reduce((sum, element) => sum + 1 + valueBytes(element), 0);
  if (value.M !== undefined)
    return (
      3 +
      Object.entries(value.M).reduce(
        (sum, [name, element]) => sum + 1 + Buffer.byteLength(name) + valueBytes(element),
        0,
      )
    );
  if (value.SS !== undefined) return value.SS.reduce((sum, element) => sum + Buffer.byteLength(element), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, element) => sum + element.length, 0);
  return 0;
}

/** What the stack keeps: the table's bytes (the audit log apart, for its own retention) and the bucket's. */
export async function storedBytes(
  deployed: DeployedStack,
): Promise<Pick<MeasuredUsage, 'tableBytes' | 'auditBytes' | 'bucketBytes'>> {
  const { s3 } = deployed.stack.clients;
  let tableBytes = 0;
  let auditBytes = 0;
  await scanTable(deployed, (item) => {
    const bytes = itemBytes(item);
    if (item.pk?.S?.startsWith(AUDIT_KEY_PREFIX)) auditBytes += bytes;
    else tableBytes += bytes;
  });
  const bucketBytes: Record<string, number> = {};
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: deployed.stack.resources.bucketName, ContinuationToken: token }),
    );
    for (const object of page.Contents ?? []) {
      const prefix = `${(object.Key ?? '').split('/')[0]}/`;
      bucketBytes[prefix] = (bucketBytes[prefix] ?? 0) + (object.Size ?? 0);
    }
    token = page.NextContinuationToken;
  } while (token);
  return { tableBytes, auditBytes, bucketBytes };
}

/** Every item of the stack's table, page by page. */
async function scanTable(
  deployed: DeployedStack,
  each: (item: Record<string, AttributeValue>) => void,
): Promise<void> {
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await deployed.stack.clients.dynamo.send(
      new ScanCommand({ TableName: deployed.stack.resources.tableName, ExclusiveStartKey: startKey }),
    );
    for (const item of page.Items ?? []) each(item);
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
