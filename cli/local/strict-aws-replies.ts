/**
 * What the strict endpoint answers in the services' own words: AWS's error bodies for the faults it injects
 * (DynamoDB's throttling and 500, S3's SlowDown, SQS's InternalFailure), and how a reply is written back.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

/** An answer as the proxy hands it back. */
export interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders | Record<string, string>;
  readonly body: Buffer;
}

export const DYNAMO_NAMESPACE = 'com.amazonaws.dynamodb.v20120810';
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** The DynamoDB error body as the service sends it (JSON protocol: `__type` and `message`). */
export function dynamoError(status: number, type: string, fields: Record<string, unknown>): Reply {
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

export const DYNAMO_FAULTS = {
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
export function s3SlowDown(method: string): Reply {
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
export function sqsInternalFailure(): Reply {
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

/** Writes `reply` to the client, without the hop-by-hop headers of the upstream's answer. */
export function send(response: ServerResponse, reply: Reply, head: boolean): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(reply.headers))
    if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase())) headers[name] = value;
  // A HEAD answer's length is the object's, not its (empty) body's.
  const length = head ? reply.headers['content-length'] : String(reply.body.length);
  if (length !== undefined) headers['content-length'] = length;
  response.writeHead(reply.status, headers);
  response.end(head ? undefined : reply.body);
}
