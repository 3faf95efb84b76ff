import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SeededRandom } from '../../emulator/seeded-random.ts';
import { type AwsCall, type AwsService, parseAwsRequest, readBody } from './aws-request.ts';
import {
  DYNAMO_FAULTS,
  DYNAMO_NAMESPACE,
  dynamoError,
  type Reply,
  s3SlowDown,
  send,
  sqsInternalFailure,
} from './strict-aws-replies.ts';
import type { StrictFaultKind, StrictModeOptions, StrictStats } from './strict-mode-options.ts';

export type { StrictModeOptions, StrictStats } from './strict-mode-options.ts';

export interface StrictAwsProxyOptions extends StrictModeOptions {
  /** Where each service is really served. */
  readonly upstreams: Readonly<Partial<Record<AwsService, string>>>;
  /** The attribute names of the tables' primary keys (partition key, then sort key). */
  readonly keyAttributes: readonly string[];
}

class StrictAwsProxyError extends Error {
  override readonly name = 'StrictAwsProxyError';
}

/** An item a DynamoDB request writes or reads: its identity (table and key) and its key as text. */
interface ItemRef {
  readonly id: string;
  readonly key: string;
}

const DEFAULT_HOLD_MS = 10;
const DEFAULT_SINGLE_WRITE_HOLD_MS = 1;
const ONGOING = 'Transaction is ongoing for the item';
const SINGLE_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

const increment = (counts: Record<string, number>, key: string, by = 1) => {
  counts[key] = (counts[key] ?? 0) + by;
};

/**
 * The shape of an item key, with its variable parts elided: `BATCH#9c41e0…|ROW#000000012` → `BATCH#…|ROW#…`.
 * Upper-case words (`BATCH`, `META`, `ROW`) are the table's fixed vocabulary; anything else is an identifier.
 */
export function keyShape(key: string): string {
  return key
    .split('|')
    .map((part) =>
      part
        .split('#')
        .map((segment) => (/^[A-Z][A-Z_]*$/.test(segment) ? segment : '…'))
        .join('#'),
    )
    .join('|');
}

const attributeText = (value: unknown): string => {
  if (value === null || typeof value !== 'object') return String(value);
  const typed = value as Record<string, unknown>;
  if (typeof typed.S === 'string') return typed.S;
  if (typeof typed.N === 'string') return typed.N;
  return JSON.stringify(value);
};

/**
 * The strict-mode endpoint (see {@link StrictModeOptions}). Point the SDK clients' `endpoint` here; it tells the
 * services apart by the request's SigV4 signing name and forwards to `upstreams`.
 */
export class StrictAwsProxy {
  readonly #server: Server;
  readonly #agent = new Agent({ keepAlive: true });
  readonly #options: StrictAwsProxyOptions;
  readonly #faultRandom: SeededRandom;
  readonly #duplicateRandom: SeededRandom;
  /** Items written in flight: by a transaction (at most one), and by how many single writes. */
  readonly #inFlight = new Map<string, { transaction: boolean; singleWrites: number }>();
  readonly #requests: Record<string, number> = {};
  readonly #conflictsByOperation: Record<string, number> = {};
  readonly #conflictsByShape: Record<string, number> = {};
  readonly #faults: Record<string, number> = {};
  #duplicateDeliveries = 0;
  readonly #elapsed: Record<string, number> = {};

  private constructor(options: StrictAwsProxyOptions) {
    this.#options = options;
    const seed = String(options.seed ?? 'strict');
    this.#faultRandom = new SeededRandom(`${seed}:faults`);
    this.#duplicateRandom = new SeededRandom(`${seed}:duplicates`);
    this.#server = createServer((request, response) => {
      this.#handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
        response.end(String(error));
      });
    });
  }

  static async start(options: StrictAwsProxyOptions): Promise<StrictAwsProxy> {
    const proxy = new StrictAwsProxy(options);
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  stats(): StrictStats {
    const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
    return {
      requests: { ...this.#requests },
      conflicts: {
        total: sum(this.#conflictsByOperation),
        byOperation: { ...this.#conflictsByOperation },
        byItemShape: { ...this.#conflictsByShape },
      },
      faults: { total: sum(this.#faults), byKind: { ...this.#faults } },
      duplicateDeliveries: this.#duplicateDeliveries,
      meanMs: Object.fromEntries(
        Object.entries(this.#elapsed).map(([operation, total]) => [
          operation,
          Number((total / (this.#requests[operation] ?? 1)).toFixed(1)),
        ]),
      ),
    };
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
    this.#agent.destroy();
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = await readBody(request);
    const call = parseAwsRequest(request, body);
    const operation = `${call.service}.${call.operation}`;
    const arrived = performance.now();
    increment(this.#requests, operation);
    const upstream = this.#options.upstreams[call.service];
    if (upstream === undefined)
      throw new StrictAwsProxyError(`no upstream for ${call.service} (${call.operation})`);
    const forward = () => this.#forward(upstream, request, body);
    const fault = this.#drawFault(call, request.method ?? 'GET');
    const reply = fault ?? (await this.#dispatch(call, forward));
    increment(this.#elapsed, operation, performance.now() - arrived);
    send(response, reply, request.method === 'HEAD');
  }

  #dispatch(call: AwsCall, forward: () => Promise<Reply>): Promise<Reply> {
    if (call.service === 'dynamodb') {
      if (call.operation === 'TransactWriteItems') return this.#transactWrite(call, forward);
      if (call.operation === 'TransactGetItems') return this.#transactGet(call, forward);
      if (SINGLE_WRITES.has(call.operation) || call.operation === 'BatchWriteItem')
        return this.#singleWrites(call, forward);
    }
    if (call.service === 'sqs') return this.#send(call, forward);
    return forward();
  }

  /** One draw per request of a service with faults configured; the first rate the draw falls under wins. */
  #drawFault(call: AwsCall, method: string): Reply | null {
    const candidates: [StrictFaultKind, number | undefined, () => Reply][] = [];
    const { faults = {} } = this.#options;
    const applies = (operations: readonly string[] | undefined) =>
      operations === undefined || operations.includes(call.operation);
    if (call.service === 'dynamodb' && faults.dynamodb && applies(faults.dynamodb.operations)) {
      const rates = faults.dynamodb;
      candidates.push(
        [
          'dynamodb.ProvisionedThroughputExceededException',
          rates.throughputExceeded,
          DYNAMO_FAULTS['dynamodb.ProvisionedThroughputExceededException'],
        ],
        ['dynamodb.ThrottlingException', rates.throttling, DYNAMO_FAULTS['dynamodb.ThrottlingException']],
        [
          'dynamodb.InternalServerError',
          rates.internalServerError,
          DYNAMO_FAULTS['dynamodb.InternalServerError'],
        ],
      );
    }
    if (call.service === 's3' && faults.s3 && applies(faults.s3.operations))
      candidates.push(['s3.SlowDown', faults.s3.slowDown, () => s3SlowDown(method)]);
    if (call.service === 'sqs' && faults.sqs && applies(faults.sqs.operations))
      candidates.push(['sqs.InternalFailure', faults.sqs.internalFailure, sqsInternalFailure]);
    const active = candidates.filter(([, rate]) => (rate ?? 0) > 0);
    if (active.length === 0) return null;
    const draw = this.#faultRandom.next();
    let threshold = 0;
    for (const [kind, rate, reply] of active) {
      threshold += rate ?? 0;
      if (draw < threshold) {
        increment(this.#faults, kind);
        return reply();
      }
    }
    return null;
  }

  #itemRef(table: string, key: Record<string, unknown>): ItemRef {
    const values = this.#options.keyAttributes.map((name) => attributeText(key[name]));
    return { id: `${table}\n${values.join('\n')}`, key: values.join('|') };
  }

  /** The items of a `TransactWriteItems` or `TransactGetItems`, in request order. */
  #transactionItems(call: AwsCall): ItemRef[] {
    const entries = (call.input.TransactItems ?? []) as Record<string, Record<string, unknown>>[];
    return entries.map((entry) => {
      const action = Object.values(entry)[0] ?? {};
      const key = (action.Key ?? action.Item ?? {}) as Record<string, unknown>;
      return this.#itemRef(String(action.TableName ?? ''), key);
    });
  }

  /** The items of a `PutItem`, `UpdateItem`, `DeleteItem` or `BatchWriteItem`. */
  #writtenItems(call: AwsCall): ItemRef[] {
    const { input } = call;
    if (call.operation !== 'BatchWriteItem') {
      const key = (input.Key ?? input.Item ?? {}) as Record<string, unknown>;
      return [this.#itemRef(String(input.TableName ?? ''), key)];
    }
    const requests = (input.RequestItems ?? {}) as Record<string, Record<string, Record<string, unknown>>[]>;
    return Object.entries(requests).flatMap(([table, writes]) =>
      writes.map((write) => {
        const key = (write.PutRequest?.Item ?? write.DeleteRequest?.Key ?? {}) as Record<string, unknown>;
        return this.#itemRef(table, key);
      }),
    );
  }

  #countConflict(operation: string, items: readonly ItemRef[]): void {
    increment(this.#conflictsByOperation, operation);
    for (const item of items) increment(this.#conflictsByShape, keyShape(item.key));
  }

  #cancelled(operation: string, items: readonly ItemRef[], conflicting: readonly boolean[]): Reply {
    this.#countConflict(
      operation,
      items.filter((_, index) => conflicting[index]),
    );
    const codes = conflicting.map((conflict) => (conflict ? 'TransactionConflict' : 'None'));
    return dynamoError(400, `${DYNAMO_NAMESPACE}#TransactionCanceledException`, {
      CancellationReasons: codes.map((code) =>
        code === 'None' ? { Code: code } : { Code: code, Message: ONGOING },
      ),
      Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
    });
  }

  /** Cancelled if any item is in another transaction or a single write in flight; otherwise holds its items. */
  async #transactWrite(call: AwsCall, forward: () => Promise<Reply>): Promise<Reply> {
    const items = this.#transactionItems(call);
    const conflicting = items.map((item) => {
      const held = this.#inFlight.get(item.id);
      return held !== undefined && (held.transaction || held.singleWrites > 0);
    });
    if (conflicting.some(Boolean)) return this.#cancelled(call.operation, items, conflicting);
    // A request naming one item twice is invalid: DynamoDB Local answers it with its ValidationException.
    const ids = [...new Set(items.map((item) => item.id))];
    for (const id of ids) {
      const held = this.#inFlight.get(id) ?? { transaction: false, singleWrites: 0 };
      this.#inFlight.set(id, { ...held, transaction: true });
    }
    try {
      const reply = await forward();
      await sleep(this.#options.holdMs ?? DEFAULT_HOLD_MS);
      return reply;
    } finally {
      for (const id of ids) this.#release(id, 'transaction');
    }
  }

  /** A transactional read of an item being written is cancelled. */
  #transactGet(call: AwsCall, forward: () => Promise<Reply>): Promise<Reply> {
    const items = this.#transactionItems(call);
    const conflicting = items.map((item) => this.#inFlight.has(item.id));
    if (conflicting.some(Boolean))
      return Promise.resolve(this.#cancelled(call.operation, items, conflicting));
    return forward();
  }

  /**
   * A write of an item in an ongoing transaction fails with `TransactionConflictException`. For a `BatchWriteItem`
   * the whole call fails (the conservative reading: AWS may instead return the item unprocessed).
   */
  async #singleWrites(call: AwsCall, forward: () => Promise<Reply>): Promise<Reply> {
    const items = this.#writtenItems(call);
    const conflicting = items.filter((item) => this.#inFlight.get(item.id)?.transaction === true);
    if (conflicting.length > 0) {
      this.#countConflict(call.operation, conflicting);
      return dynamoError(400, `${DYNAMO_NAMESPACE}#TransactionConflictException`, { message: ONGOING });
    }
    for (const item of items) {
      const held = this.#inFlight.get(item.id) ?? { transaction: false, singleWrites: 0 };
      this.#inFlight.set(item.id, { ...held, singleWrites: held.singleWrites + 1 });
    }
    try {
      const reply = await forward();
      await sleep(this.#options.singleWriteHoldMs ?? DEFAULT_SINGLE_WRITE_HOLD_MS);
      return reply;
    } finally {
      for (const item of items) this.#release(item.id, 'singleWrite');
    }
  }

  #release(id: string, holder: 'transaction' | 'singleWrite'): void {
    const held = this.#inFlight.get(id);
    if (held === undefined) return;
    const next =
      holder === 'transaction'
        ? { ...held, transaction: false }
        : { ...held, singleWrites: held.singleWrites - 1 };
    if (!next.transaction && next.singleWrites <= 0) this.#inFlight.delete(id);
    else this.#inFlight.set(id, next);
  }

  /** Sends are delivered twice with the configured probability; the sender sees the first answer. */
  async #send(call: AwsCall, forward: () => Promise<Reply>): Promise<Reply> {
    const duplicates = this.#options.faults?.sqs;
    const queueName = String(call.input.QueueUrl ?? '')
      .split('/')
      .pop();
    const eligible =
      (call.operation === 'SendMessage' || call.operation === 'SendMessageBatch') &&
      (duplicates?.duplicateDelivery ?? 0) > 0 &&
      (duplicates?.duplicateQueues === undefined || duplicates.duplicateQueues.includes(queueName ?? ''));
    const first = await forward();
    if (
      !eligible ||
      first.status !== 200 ||
      !this.#duplicateRandom.chance(duplicates?.duplicateDelivery ?? 0)
    )
      return first;
    const second = await forward();
    if (second.status === 200)
      this.#duplicateDeliveries +=
        call.operation === 'SendMessage' ? 1 : ((call.input.Entries as unknown[] | undefined)?.length ?? 0);
    return first;
  }

  #forward(upstream: string, request: IncomingMessage, body: Buffer): Promise<Reply> {
    const url = new URL(request.url ?? '/', upstream);
    // The body is forwarded whole: its length replaces any chunked transfer, and there is nothing to continue.
    const { 'transfer-encoding': _chunked, expect: _expect, ...headers } = request.headers;
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        url,
        {
          method: request.method,
          agent: this.#agent,
          headers: { ...headers, host: url.host, 'content-length': String(body.length) },
        },
        (reply) => {
          readBody(reply).then(
            (replyBody) =>
              resolve({ status: reply.statusCode ?? 502, headers: reply.headers, body: replyBody }),
            reject,
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }
}
