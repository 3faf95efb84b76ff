import { randomBytes } from 'node:crypto';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SeededRandom } from '../emulator/seeded-random.ts';
import { type AwsCall, type AwsService, parseAwsRequest, readBody } from './aws-request.ts';

/**
 * Strict mode: an AWS endpoint in front of the local emulators (DynamoDB Local; fauxqs for S3 and SQS) that gives
 * the real SDK clients going through it the behaviour of the AWS services where the emulators are more forgiving.
 *
 * DynamoDB transactions. DynamoDB Local runs transactions one after another, so two transactions on one item both
 * succeed. DynamoDB does not lock items for the length of a transaction: it cancels what overlaps. A
 * `TransactWriteItems` with an item that another `TransactWriteItems` in flight includes is cancelled
 * (`TransactionCanceledException`, reason `TransactionConflict` for that item); a `PutItem`, `UpdateItem` or
 * `DeleteItem` on an item an ongoing transaction includes fails with `TransactionConflictException`; an item
 * changed outside a transaction while the transaction runs cancels the transaction; a `TransactGetItems` on an
 * item being written is cancelled. Both exceptions are HTTP 400 and the SDK's default retry strategy retries
 * neither (they are in none of its throttling, transient or clock-skew lists; the tests assert it). Because
 * DynamoDB Local answers in about a millisecond where a transaction takes 10–30 ms in AWS, a write stays "in
 * flight" here for a hold time after DynamoDB Local answered, so overlaps happen at realistic rates.
 *
 * Faults, drawn from a seeded generator (the same seed and the same order of requests give the same faults) and
 * counted: DynamoDB `ProvisionedThroughputExceededException` and `ThrottlingException` (400) and
 * `InternalServerError` (500); S3 503 `SlowDown`; SQS 500 `InternalFailure`; and duplicate SQS deliveries (a
 * `SendMessage`/`SendMessageBatch` forwarded twice: at-least-once delivery). Every fault is injected before the
 * request is forwarded, so the emulator never saw the failed attempt and the SDK's retry of it is always safe.
 * AWS can also fail a request after applying it (a 500 after the write); that is not injected here: a retried
 * non-idempotent write (`ADD`) would then apply twice, and the pipeline's own idempotence is what the duplicate
 * deliveries test.
 */
export interface StrictModeOptions {
  /** Seed of the fault and duplicate draws. @default 'strict' */
  readonly seed?: number | string;
  /** How long a `TransactWriteItems` keeps its items after DynamoDB Local answered. @default 10 */
  readonly holdMs?: number;
  /** How long a single-item write (or a `BatchWriteItem`) keeps its items after DynamoDB Local answered. @default 1 */
  readonly singleWriteHoldMs?: number;
  readonly faults?: StrictFaults;
}

/** Fault rates (probability per request, 0–1) by service; `operations` restricts them to those operations. */
interface StrictFaults {
  readonly dynamodb?: {
    readonly throughputExceeded?: number;
    readonly throttling?: number;
    readonly internalServerError?: number;
    readonly operations?: readonly string[];
  };
  readonly s3?: { readonly slowDown?: number; readonly operations?: readonly string[] };
  readonly sqs?: {
    readonly internalFailure?: number;
    readonly operations?: readonly string[];
    /** Probability that a `SendMessage`/`SendMessageBatch` is delivered twice. */
    readonly duplicateDelivery?: number;
    /** Queue names whose sends may be duplicated. @default every queue */
    readonly duplicateQueues?: readonly string[];
  };
}

type StrictFaultKind =
  | 'dynamodb.ProvisionedThroughputExceededException'
  | 'dynamodb.ThrottlingException'
  | 'dynamodb.InternalServerError'
  | 's3.SlowDown'
  | 'sqs.InternalFailure';

/** What the proxy saw and did, for tests and benchmarks. */
export interface StrictStats {
  /** Requests received, by `service.Operation` (faulted and cancelled ones included). */
  readonly requests: Readonly<Record<string, number>>;
  readonly conflicts: {
    readonly total: number;
    /** Requests refused for a conflict, by operation (`TransactWriteItems`, `UpdateItem`, …). */
    readonly byOperation: Readonly<Record<string, number>>;
    /** Conflicting items by key shape (`BATCH#…|META`, `BATCH#…|ROW#…`): a hot item stands out. */
    readonly byItemShape: Readonly<Record<string, number>>;
  };
  readonly faults: { readonly total: number; readonly byKind: Readonly<Record<string, number>> };
  /** Messages sent twice. */
  readonly duplicateDeliveries: number;
  /**
   * Mean milliseconds from a request's arrival to its answer, by `service.Operation`: for DynamoDB writes, how long
   * their items were in flight (the emulator's latency on this machine plus the hold).
   */
  readonly meanMs: Readonly<Record<string, number>>;
}

export interface StrictAwsProxyOptions extends StrictModeOptions {
  /** Where each service is really served. */
  readonly upstreams: Readonly<Partial<Record<AwsService, string>>>;
  /** The attribute names of the tables' primary keys (partition key, then sort key). */
  readonly keyAttributes: readonly string[];
}

class StrictAwsProxyError extends Error {
  override readonly name = 'StrictAwsProxyError';
}

interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders | Record<string, string>;
  readonly body: Buffer;
}

/** An item a DynamoDB request writes or reads: its identity (table and key) and its key as text. */
interface ItemRef {
  readonly id: string;
  readonly key: string;
}

const DEFAULT_HOLD_MS = 10;
const DEFAULT_SINGLE_WRITE_HOLD_MS = 1;
const DYNAMO_NAMESPACE = 'com.amazonaws.dynamodb.v20120810';
const ONGOING = 'Transaction is ongoing for the item';
const SINGLE_WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

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

/** The DynamoDB error body as the service sends it (JSON protocol: `__type` and `message`). */
function dynamoError(status: number, type: string, fields: Record<string, unknown>): Reply {
  const body = Buffer.from(JSON.stringify({ __type: type, ...fields }));
  return {
    status,
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amzn-requestid': randomBytes(16).toString('hex').toUpperCase(),
    },
    body,
  };
}

const DYNAMO_FAULTS = {
  'dynamodb.ProvisionedThroughputExceededException': () =>
    dynamoError(400, `${DYNAMO_NAMESPACE}#ProvisionedThroughputExceededException`, {
      message:
        'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
    }),
  // DynamoDB sends ThrottlingException from its front end's (coral) namespace.
  'dynamodb.ThrottlingException': () =>
    dynamoError(400, 'com.amazon.coral.availability#ThrottlingException', {
      message: 'Rate of requests exceeds the allowed throughput.',
    }),
  'dynamodb.InternalServerError': () =>
    dynamoError(500, `${DYNAMO_NAMESPACE}#InternalServerError`, { message: 'Internal server error' }),
} as const;

/** S3's 503 `SlowDown`, an XML error document as S3 sends it (none on a HEAD). */
function s3SlowDown(method: string): Reply {
  const requestId = randomBytes(8).toString('hex').toUpperCase();
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>${requestId}</RequestId><HostId>${randomBytes(24).toString('base64')}</HostId></Error>`;
  return {
    status: 503,
    headers: { 'content-type': 'application/xml', 'x-amz-request-id': requestId },
    body: method === 'HEAD' ? Buffer.alloc(0) : Buffer.from(xml),
  };
}

/**
 * SQS's 500 `InternalFailure` in the JSON protocol the SDK uses (`x-amz-target: AmazonSQS.*`): `__type` in the body
 * and, as SQS sends for query compatibility, the code in `x-amzn-query-error`.
 */
function sqsInternalFailure(): Reply {
  return {
    status: 500,
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amzn-requestid': randomBytes(16).toString('hex'),
      'x-amzn-query-error': 'InternalFailure;Receiver',
    },
    body: Buffer.from(
      JSON.stringify({
        __type: 'com.amazonaws.sqs#InternalFailure',
        message: 'The request processing has failed because of an unknown error, exception or failure.',
      }),
    ),
  };
}

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

function send(response: ServerResponse, reply: Reply, head: boolean): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(reply.headers))
    if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase())) headers[name] = value;
  // A HEAD answer's length is the object's, not its (empty) body's.
  const length = head ? reply.headers['content-length'] : String(reply.body.length);
  if (length !== undefined) headers['content-length'] = length;
  response.writeHead(reply.status, headers);
  response.end(head ? undefined : reply.body);
}
