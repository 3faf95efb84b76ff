import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readCloudAssembly, type Template } from '../../cli/local/cloud-assembly.ts';
import { objectCreatedEvent } from '../../cli/local/s3-notification.ts';
import { SeededRandom } from '../../emulator/seeded-random.ts';
import { HmacDocumentKeys } from '../../src/adapters/audit/hmac-document-keys.ts';
import { DynamoDbAuditLog } from '../../src/adapters/aws/dynamodb-audit-log.ts';
import { dynamoDbBatchStores } from '../../src/adapters/aws/dynamodb-batch-store.ts';
import type { BatchManifest } from '../../src/contract/index.ts';
import {
  ALERT_DETAIL_SCHEMAS,
  type AlertEventType,
  finalisePartsPrefix,
  resultKeys,
} from '../../src/contract/index.ts';
import { portfolioKeys } from '../../src/domain/monitoring/index.ts';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { parseSummary } from '../factories/pipeline.ts';
import { consoleApiEvent } from './console-api-events.ts';
import { DeployedStack } from './deployed-stack.ts';
import {
  CDK_OUT,
  keysUnder,
  manifestOf as manifestOfBatch,
  readObject as readObjectOf,
  synthesizeIfMissing,
  uploadList,
} from './deployed-uploads.ts';
import { describeDenials, distinctRequests, type IamRequest, TemplateIam } from './iam-evaluation.ts';
import type { RecordedCall } from './recording-proxy.ts';

// Strict mode (DynamoDB's transaction conflicts behind the recording endpoints) is off until the settle path can
// take it; CREDIT_SCREEN_STRICT=1 turns it on for a run.
const STRICT = process.env.CREDIT_SCREEN_STRICT === '1' ? { seed: 'deployed-functions' } : undefined;

let deployed: DeployedStack;
/** Rows per part of a finalisation in these tests: their lists of 8 rows are finalised in three parts. */
const FINALISE_PART_ROWS = 3;

beforeAll(async () => {
  // `npm test` synthesizes before vitest; run alone, this test synthesizes itself the same way.
  synthesizeIfMissing();
  const random = new SeededRandom('deployed-functions');
  deployed = await DeployedStack.start(readCloudAssembly(CDK_OUT), {
    emulatorRandom: () => random.next(),
    strict: STRICT,
    // Lists of more than three rows are finalised in parts, so the bundled finaliser's parts run against the IAM.
    // (maxRows is lowered with it: a list is finalised in at most MAX_FINALISE_PARTS parts.)
    settings: { finalisePartRows: FINALISE_PART_ROWS, maxRows: 30_000 },
  });
}, 120_000);

afterAll(async () => {
  await deployed?.stop();
});

const readObject = (key: string) => readObjectOf(deployed, key);
const manifestOf = (batchId: string) => manifestOfBatch(deployed, batchId);
const upload = (documents: readonly string[], metadata: Record<string, string> = {}) =>
  uploadList(deployed, documents, metadata);

/** Takes `count` messages off the work queue (handing each receive's to `each` first) and deletes them. */
async function takeWorkMessages(
  count: number,
  each: (messages: readonly Message[]) => Promise<unknown> = async () => undefined,
): Promise<void> {
  const { sqs } = deployed.stack.clients;
  const { workQueueUrl } = deployed.stack.resources;
  for (let taken = 0; taken < count; ) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: workQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    if (Messages.length === 0) continue;
    await each(Messages);
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: workQueueUrl,
        Entries: Messages.map((message, index) => ({
          Id: String(index),
          ReceiptHandle: message.ReceiptHandle,
        })),
      }),
    );
    taken += Messages.length;
  }
}

describe('the bundled functions, run from cdk.out as Lambda runs them', () => {
  it('settles as failed the rows whose work messages reach the dead-letter queue, without a bureau call', async () => {
    deployed.startEventSources('DeadLetter', 'Finalise');
    const documents = distinctDocuments(3, 'dead-letters');
    const batchId = await upload(documents);
    // SQS gives up on these messages: they move from the work queue to its dead-letter queue unprocessed.
    const { workDeadLetterQueueUrl } = deployed.stack.resources;
    await takeWorkMessages(documents.length, (messages) =>
      deployed.stack.clients.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: workDeadLetterQueueUrl,
          Entries: messages.map((message, index) => ({ Id: String(index), MessageBody: message.Body ?? '' })),
        }),
      ),
    );

    const manifest = await manifestOf(batchId);

    expect(manifest.counts).toMatchObject({ rows: 3, screened: 0, failed: 3 });
    expect(deployed.emulator.stats().requests).toBe(0);
  }, 120_000);

  it('screens an upload end to end: results and the manifest written by the bundled finaliser', async () => {
    deployed.startEventSources('Worker');
    const documents = distinctDocuments(8, 'upload');

    const batchId = await upload(documents);
    const manifest = await manifestOf(batchId);

    expect(manifest).toMatchObject({ status: 'completed', counts: { rows: 8, screened: 8, failed: 0 } });
    const summary = parseSummary((await readObject(resultKeys(batchId).summary)) ?? '');
    expect(summary.map((line) => line.status)).toEqual(Array(8).fill('screened'));
    // Finalised in parts (FINALISE_PART_ROWS), joined in input order, and the parts removed.
    expect(summary.map((line) => Number(line.row))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // Removed once the batch is completed, just after the manifest.
    await expect.poll(() => keysUnder(deployed, finalisePartsPrefix(batchId))).toEqual([]);
    // The page people read, written by the bundled finaliser (ECharts and all) before the manifest that lists it.
    expect(manifest.files?.report).toBe(resultKeys(batchId).report);
    const page = (await readObject(resultKeys(batchId).report)) ?? '';
    expect(page).toContain('http-equiv="Content-Security-Policy"');
    expect(page).toMatch(/data-figure="status:screened" data-value="8"/);
    expect(page).toContain('<svg');
    expect(Object.keys(deployed.emulator.stats().chargesByDocument).sort()).toEqual([...documents].sort());
    // The finaliser announces the batch just after writing its manifest.
    await expect
      .poll(() =>
        deployed.fakes.events
          .filter((event) => event.DetailType === 'BatchCompleted')
          .map((event) => JSON.parse(event.Detail ?? '{}').batchId),
      )
      .toContain(batchId);
  }, 120_000);

  it('retries transient bureau errors and pays once per document', async () => {
    deployed.emulator.reset();
    deployed.emulator.configure({ errorRate: 0.4 });
    const documents = distinctDocuments(10, 'transient');
    try {
      const batchId = await upload(documents);
      const manifest = await manifestOf(batchId);

      // A document can still fail all its attempts (0.4^5); every one ends screened or failed, none is lost.
      const { screened, failed } = manifest.counts;
      expect(screened + failed).toBe(10);
      const stats = deployed.emulator.stats();
      // Each failed document took maxAttempts errors; more errors than that means screened ones were retried.
      const { maxAttempts } = deployed.settings;
      expect(stats.requests - stats.charged).toBeGreaterThan(failed * maxAttempts);
      expect(Object.values(stats.chargesByDocument)).toEqual(Array(screened).fill(1));
    } finally {
      deployed.emulator.configure({ errorRate: 0 });
    }
  }, 120_000);

  it('settles charge unknown, without a call, a row whose worker was killed mid-call: the bundled sweeper sends it back', async () => {
    deployed.emulator.reset();
    await deployed.stopEventSources('Worker');
    const documents = distinctDocuments(3, 'killed mid-call');
    const batchId = await upload(documents);
    // The worker took the first row, wrote its call ahead and was killed by its timeout: its message is gone, its
    // claim ran out long ago. The other rows' messages are still queued.
    const { sqs } = deployed.stack.clients;
    const { workQueueUrl } = deployed.stack.resources;
    const queued: { Body?: string; ReceiptHandle?: string }[] = [];
    while (queued.length < documents.length) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: workQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
      );
      queued.push(...Messages);
    }
    const inFlight = queued.find((message) => JSON.parse(message.Body ?? '{}').row === 1);
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: workQueueUrl,
        Entries: [{ Id: '0', ReceiptHandle: inFlight?.ReceiptHandle }],
      }),
    );
    await sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: workQueueUrl,
        Entries: queued
          .filter((message) => message !== inFlight)
          .map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle,
            VisibilityTimeout: 0,
          })),
      }),
    );
    const { batchRows } = dynamoDbBatchStores({
      client: deployed.stack.clients.dynamo,
      tableName: deployed.stack.resources.tableName,
      retentionDays: deployed.settings.retentionDays,
    });
    const claim = await batchRows.claimRow(batchId, 1, -7 * 24 * 3600);
    if (!claim.claimed) throw new Error('row 1 could not be claimed');
    expect(await batchRows.markCallSent(batchId, 1, claim.claimToken, Date.now())).toBe(true);

    const swept = await deployed.function('Sweeper').process.invoke({});
    deployed.startEventSources('Worker');
    const manifest = await manifestOf(batchId);
    const summary = parseSummary((await readObject(resultKeys(batchId).summary)) ?? '');

    expect(swept).toMatchObject({ requeued: 1 });
    expect(manifest.counts).toMatchObject({ rows: 3, screened: 2, failed: 1 });
    expect(manifest.chargeUnknownFailed).toBe(1);
    expect(summary.find((line) => line.row === '1')).toMatchObject({
      status: 'failed',
      charge_state: 'charge_unknown',
    });
    expect(deployed.emulator.stats().chargesByDocument[documents[0] as string]).toBeUndefined();
  }, 120_000);

  it('sends a batch’s queued rows from the bundled dispatcher, part by part, and buys each document once', async () => {
    deployed.emulator.reset();
    await deployed.stopEventSources('Worker');
    const documents = distinctDocuments(6, 'dispatched');
    const batchId = await upload(documents);
    // The rows' messages are taken off the queue, as if ingest had held them for an approval.
    await takeWorkMessages(documents.length);
    const { sqs } = deployed.stack.clients;
    const { dispatchQueueUrl } = deployed.stack.resources;

    // Asked twice, as an operator approving twice would: each row is still bought once.
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: dispatchQueueUrl,
        Entries: [0, 1].map((id) => ({
          Id: String(id),
          MessageBody: JSON.stringify({ version: 1, batchId }),
        })),
      }),
    );
    deployed.startEventSources('Dispatch', 'Worker');
    const manifest = await manifestOf(batchId);

    expect(manifest.counts).toMatchObject({ rows: 6, screened: 6, failed: 0 });
    expect(Object.values(deployed.emulator.stats().chargesByDocument)).toEqual(Array(6).fill(1));
  }, 120_000);

  it('buys each document once when two uploads with overlapping customers run at once', async () => {
    deployed.emulator.reset();
    // Slow answers: both batches' workers are surely at the shared documents at the same time.
    deployed.emulator.configure({ latencyMs: 150 });
    const shared = distinctDocuments(30, 'overlapping uploads');
    try {
      const [weekly, newCustomers] = await Promise.all([upload(shared), upload([...shared].reverse())]);
      const manifests = await Promise.all([manifestOf(weekly), manifestOf(newCustomers)]);

      const stats = deployed.emulator.stats();
      expect(stats.charged).toBe(30);
      expect(Object.values(stats.chargesByDocument)).toEqual(Array(30).fill(1));
      for (const manifest of manifests) expect(manifest.counts).toMatchObject({ rows: 30, failed: 0 });
      const [first, second] = manifests as [BatchManifest, BatchManifest];
      expect(first.counts.screened + second.counts.screened).toBe(30);
      expect(first.counts.cached + second.counts.cached).toBe(30);
    } finally {
      deployed.emulator.configure({ latencyMs: 0 });
    }
  }, 120_000);

  it('decides an upload with the policy it names under policies/, in the bundled worker with its engine', async () => {
    deployed.emulator.reset();
    const policy = readFileSync('samples/policies/pessoa-fisica.json');
    await deployed.stack.clients.s3.send(
      new PutObjectCommand({
        Bucket: deployed.stack.resources.bucketName,
        Key: 'policies/pessoa-fisica.json',
        Body: policy,
      }),
    );
    const documents = distinctDocuments(6, 'deployed policy');

    const batchId = await upload(documents, { policy: 'pessoa-fisica.json' });
    const manifest = await manifestOf(batchId);

    expect(manifest.policy).toEqual({
      name: 'pessoa-fisica.json',
      sha256: createHash('sha256').update(policy).digest('hex'),
    });
    const counts = manifest.decisions?.counts ?? { approve: 0, review: 0, decline: 0 };
    expect(counts.approve + counts.review + counts.decline).toBe(6);
    const summary = parseSummary((await readObject(resultKeys(batchId).summary)) ?? '');
    expect(
      summary
        .map((line) => line.decision)
        .every((value) => ['approve', 'review', 'decline'].includes(value ?? '')),
    ).toBe(true);
    expect(summary.some((line) => (line.decision_reasons ?? '').includes('POLICY_ERROR'))).toBe(false);
    // The workers decided each row as they settled it (the finaliser only copies their decisions out).
    const { batchRows } = dynamoDbBatchStores({
      client: deployed.stack.clients.dynamo,
      tableName: deployed.stack.resources.tableName,
      retentionDays: 1,
    });
    const rows = await batchRows.getRows(batchId, [1, 2, 3, 4, 5, 6]);
    expect(rows.map((row) => row.decision?.decision)).toEqual(summary.map((line) => line.decision));
    // Each request and decision is in the audit log, under the document's keyed hash only.
    const audit = new DynamoDbAuditLog({
      client: deployed.stack.clients.dynamo,
      tableName: deployed.stack.resources.tableName,
      retentionDays: 1,
    });
    const keys = new HmacDocumentKeys(async () => 'deployed0audit0key0'.repeat(4));
    const entries = await audit.read({
      batchId,
      documentKeys: await Promise.all(documents.map((document) => keys.keyOf(document))),
    });
    expect(entries.filter((entry) => entry.kind === 'bureau_request')).toHaveLength(6);
    expect(entries.filter((entry) => entry.kind === 'decision')).toHaveLength(6);
  }, 120_000);

  it('answers the console from the bundled API function, recording an override under the signed-in person', async () => {
    await deployed.stack.clients.s3.send(
      new PutObjectCommand({
        Bucket: deployed.stack.resources.bucketName,
        Key: 'policies/pessoa-fisica.json',
        Body: readFileSync('samples/policies/pessoa-fisica.json'),
      }),
    );
    const batchId = await upload(distinctDocuments(4, 'deployed console'), { policy: 'pessoa-fisica.json' });
    await manifestOf(batchId);
    const api = deployed.function('ConsoleApi').process;
    const analyst = { sub: 'f1e2d3c4', email: 'ana@example.com.br', groups: ['analyst'] } as const;
    const call = async (event: ReturnType<typeof consoleApiEvent>) => {
      const answer = (await api.invoke(event)) as { statusCode: number; body: string };
      return [answer.statusCode, JSON.parse(answer.body)] as const;
    };

    const [listed, page] = await call(
      consoleApiEvent(analyst, { method: 'GET', routeKey: '/api/batches', path: '/api/batches?limit=5' }),
    );
    const [overridden, override] = await call(
      consoleApiEvent(analyst, {
        method: 'POST',
        routeKey: '/api/batches/{batchId}/rows/{row}/override',
        path: `/api/batches/${batchId}/rows/1/override`,
        body: { decision: 'decline', reason: 'Cadastro divergente' },
      }),
    );
    const [exported, written] = await call(
      consoleApiEvent(analyst, {
        method: 'POST',
        routeKey: '/api/batches/{batchId}/export',
        path: `/api/batches/${batchId}/export`,
        body: {},
      }),
    );
    const [spent, month] = await call(
      consoleApiEvent(analyst, { method: 'GET', routeKey: '/api/spend', path: '/api/spend' }),
    );
    const [refused] = await call(
      consoleApiEvent(analyst, {
        method: 'POST',
        routeKey: '/api/batches/{batchId}/cancel',
        path: `/api/batches/${batchId}/cancel`,
        body: {},
      }),
    );

    const [linked, link] = await call(
      consoleApiEvent(analyst, {
        method: 'POST',
        routeKey: '/api/batches/{batchId}/downloads',
        path: `/api/batches/${batchId}/downloads`,
        body: { file: 'summary' },
      }),
    );

    const [listedPolicies, policies] = await call(
      consoleApiEvent(analyst, { method: 'GET', routeKey: '/api/policies', path: '/api/policies' }),
    );
    const [ticketed, ticket] = await call(
      consoleApiEvent(analyst, {
        method: 'POST',
        routeKey: '/api/uploads/ticket',
        path: '/api/uploads/ticket',
        body: { fileName: 'novos.csv', bureau: 'a', policy: 'pessoa-fisica.json', size: 100 },
      }),
    );
    // The upload S3 takes with the ticket is a put of the function's role: allowed under incoming/ only.
    const consoleRole = deployed.function('ConsoleApi').definition.logicalId;
    const bucketArn = `arn:aws:s3:::${deployed.stack.resources.bucketName}`;
    const put = (key: string): IamRequest => ({
      caller: consoleRole,
      action: 's3:PutObject',
      resource: `${bucketArn}/${key}`,
      context: { 'aws:SecureTransport': 'true' },
      because: `a ticket's upload to ${key}`,
    });
    const templateIam = new TemplateIam(deployed.assembly.template, deployed.resolver());
    const ticketPuts = await templateIam.evaluate([
      put(ticket.fields.key),
      put('policies/x.json'),
      put('work/x'),
    ]);
    // A manager gives rows to the pool's reviewers: the function may list a group's members, and change nothing.
    const poolId = Object.entries(deployed.assembly.template.Resources).find(
      ([, resource]) => resource.Type === 'AWS::Cognito::UserPool',
    )?.[0] as string;
    const poolArn = deployed.resolver().resolveString({ 'Fn::GetAtt': [poolId, 'Arn'] });
    const onPool = (action: string): IamRequest => ({
      caller: consoleRole,
      action,
      resource: poolArn,
      context: {},
      because: `${action} on the user pool`,
    });
    const poolDenials = await templateIam.evaluate(
      ['cognito-idp:ListUsersInGroup', 'cognito-idp:AdminAddUserToGroup', 'cognito-idp:AdminCreateUser'].map(
        onPool,
      ),
    );

    expect(poolDenials.map((denial) => denial.request.action)).toEqual([
      'cognito-idp:AdminAddUserToGroup',
      'cognito-idp:AdminCreateUser',
    ]);
    expect([listedPolicies, policies.policies]).toEqual([
      200,
      expect.arrayContaining(['pessoa-fisica.json']),
    ]);
    expect(ticketed).toBe(200);
    expect(ticket.fields.key).toMatch(/^incoming\/a\//);
    expect(ticketPuts.map((denial) => denial.request.resource.split('/').slice(1).join('/'))).toEqual([
      'policies/x.json',
      'work/x',
    ]);
    expect([linked, link.fileName]).toEqual([200, `${batchId}-summary.csv`]);
    // Presigned by the function's own role, for the summary only, as an attachment.
    expect(new URL(link.url).pathname).toMatch(new RegExp(`/results/${batchId}/summary\\.csv$`));
    expect(new URL(link.url).searchParams.get('X-Amz-Expires')).toBe('300');
    expect(new URL(link.url).searchParams.get('response-content-disposition')).toBe(
      `attachment; filename="${batchId}-summary.csv"`,
    );
    expect(listed).toBe(200);
    expect(page.batches[0]).toMatchObject({ batchId, status: 'completed' });
    expect([overridden, override]).toEqual([
      200,
      expect.objectContaining({ row: 1, decision: 'decline', by: 'ana@example.com.br' }),
    ]);
    expect(refused).toBe(403);
    expect([spent, month.bureaus.map((line: { bureau: string }) => line.bureau)]).toEqual([200, ['a', 'b']]);
    // The export rewrote the summary with the final decisions: the override's row names the analyst.
    expect([exported, written.overridden]).toEqual([200, 1]);
    expect((await readObject(resultKeys(batchId).summary)) ?? '').toContain(',ana@example.com.br,');
  }, 120_000);

  it('rejects a policy that does not compile when it is uploaded, announces it, and refuses an upload that names it', async () => {
    deployed.emulator.reset();
    const bucket = deployed.stack.resources.bucketName;
    const key = 'policies/estrita.json';
    const broken = readFileSync('samples/policies/pessoa-fisica.json', 'utf8').replace('"> 0"', '"> > 5 (("');
    await deployed.stack.clients.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: broken }));

    const [verdict] = (await deployed.notifyFromBucket(
      'PolicyCheck',
      objectCreatedEvent({ bucket, key, size: Buffer.byteLength(broken) }),
    )) as { accepted: boolean; problem: string }[];

    expect(verdict?.accepted).toBe(false);
    expect(verdict?.problem).toContain('does not compile');
    const rejected = deployed.fakes.events.filter((event) => event.DetailType === 'PolicyRejected');
    expect(rejected.map((event) => JSON.parse(event.Detail ?? '{}'))).toEqual([
      expect.objectContaining({ name: 'estrita.json', key, problem: verdict?.problem }),
    ]);
    const listKey = `incoming/a/${randomUUID()}.csv`;
    const list = customerListCsv(distinctDocuments(3, 'rejected policy'));
    await deployed.stack.clients.s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: listKey,
        Body: list,
        Metadata: { policy: 'estrita.json' },
      }),
    );
    const [outcome] = (await deployed.notifyFromBucket(
      'Ingest',
      objectCreatedEvent({ bucket, key: listKey, size: Buffer.byteLength(list) }),
    )) as { outcome: string; reason: string }[];
    expect(outcome).toMatchObject({
      outcome: 'file_rejected',
      reason: `the policy estrita.json was rejected when it was uploaded: ${verdict?.problem}`,
    });
    expect(deployed.emulator.stats().charged).toBe(0);
  }, 120_000);

  it('runs a portfolio: its file sets a schedule, whose invocation of ingest screens the list', async () => {
    const name = 'deploy-test';
    const documents = distinctDocuments(4, 'portfolio');
    const body = customerListCsv(documents);
    const bucket = deployed.stack.resources.bucketName;
    await deployed.stack.clients.s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: portfolioKeys(name).list, Body: body }),
    );
    await deployed.notifyFromBucket(
      'PortfolioSchedules',
      objectCreatedEvent({ bucket, key: portfolioKeys(name).list, size: Buffer.byteLength(body) }),
    );
    const [schedule] = [...deployed.scheduler.schedules.values()];
    const target = schedule?.Target as { Arn: string; Input: string } | undefined;
    const ingestArn = deployed.resolver().resolveString({
      'Fn::GetAtt': [deployed.function('Ingest').definition.logicalId, 'Arn'],
    });
    expect(target?.Arn).toBe(ingestArn);

    // What Scheduler sends when the schedule fires: the target's input with its execution id filled in.
    const input = JSON.parse((target?.Input ?? '{}').replace('<aws.scheduler.execution-id>', randomUUID()));
    const [outcome] = (await deployed.invokeAs(schedulerRole(), {}, 'Ingest', input)) as {
      batchId: string;
    }[];
    const manifest = await manifestOf(outcome?.batchId ?? '');

    expect(input.portfolio).toBe(name);
    expect(manifest.counts).toMatchObject({ rows: 4, screened: 4 });
    // The bundled finaliser publishes the alert catalogue's payloads: what the webhooks' rules match and deliver.
    // The manifest is written before the batch is announced: wait for the finaliser's events.
    const announcements = () =>
      deployed.fakes.events.filter((event) => event.Detail?.includes(manifest.batchId));
    await vi.waitFor(() => expect(announcements()).toHaveLength(2), { timeout: 30_000, interval: 100 });
    const published = announcements().map((event) => ({
      type: event.DetailType as AlertEventType,
      detail: JSON.parse(event.Detail ?? '{}'),
    }));
    expect(published.map((event) => event.type).sort()).toEqual(['BatchCompleted', 'PortfolioChanged']);
    for (const { type, detail } of published)
      expect(ALERT_DETAIL_SCHEMAS[type].parse(detail)).toEqual(detail);
    expect(published.find((event) => event.type === 'BatchCompleted')?.detail).toMatchObject({
      batchId: manifest.batchId,
      counts: manifest.counts,
      documentForm: 'none',
    });
    expect(published.find((event) => event.type === 'PortfolioChanged')?.detail).toMatchObject({
      portfolio: name,
      counts: { first_screening: 4 },
      documentForm: 'masked',
    });
  }, 120_000);
});

/** The logical id of the role Scheduler assumes, as the schedules function passes it. */
function schedulerRole(): string {
  const variables = (
    deployed.function('PortfolioSchedules').definition.properties.Environment as {
      Variables: Record<string, { 'Fn::GetAtt'?: string[] }>;
    }
  ).Variables;
  return variables.SCHEDULE_ROLE_ARN?.['Fn::GetAtt']?.[0] ?? '';
}

/** A copy of the template whose role policies of `functionName` no longer grant `action`. */
function withoutGrant(template: Template, functionName: string, action: string): Template {
  const copy = structuredClone(template) as Template;
  const role = (deployed.function(functionName).definition.properties.Role as { 'Fn::GetAtt': string[] })[
    'Fn::GetAtt'
  ][0];
  let removed = 0;
  for (const resource of Object.values(copy.Resources)) {
    const properties = resource.Properties ?? {};
    const roles = (properties.Roles as { Ref: string }[] | undefined) ?? [];
    if (resource.Type !== 'AWS::IAM::Policy' || !roles.some((candidate) => candidate.Ref === role)) continue;
    const document = properties.PolicyDocument as { Statement: { Action: string | string[] }[] };
    for (const statement of document.Statement) {
      const actions = [statement.Action].flat();
      statement.Action = actions.filter((candidate) => candidate !== action);
      removed += actions.length - statement.Action.length;
    }
    document.Statement = document.Statement.filter((statement) => statement.Action.length > 0);
  }
  if (removed === 0) throw new Error(`the ${functionName} role has no grant of ${action} to remove`);
  return copy;
}

describe("every AWS call the bundled functions made, against the template's IAM", () => {
  let calls: RecordedCall[];
  let iam: TemplateIam;
  let requests: IamRequest[];

  beforeAll(() => {
    calls = [...deployed.functions.values()].flatMap(({ proxy }) => proxy.calls);
    iam = new TemplateIam(deployed.assembly.template, deployed.resolver());
    requests = distinctRequests(calls.flatMap((call) => iam.requestsOf(call)));
  });

  it("recorded the calls of every function, the services' KMS use on their behalf included", () => {
    const kinds = (name: string) =>
      new Set(
        calls
          .filter((call) => call.caller === deployed.function(name).definition.logicalId)
          .map((call) => `${call.service}:${call.operation}`),
      );
    expect([...kinds('Ingest')]).toEqual(
      expect.arrayContaining(['s3:GetObject', 'dynamodb:UpdateItem', 'sqs:SendMessageBatch']),
    );
    expect([...kinds('Worker')]).toEqual(
      expect.arrayContaining([
        'secretsmanager:GetSecretValue',
        'sqs:ReceiveMessage',
        'sqs:DeleteMessageBatch',
      ]),
    );
    // In parts too: it queues them, lists which are written, joins them and removes them.
    expect([...kinds('Finalise')]).toEqual(
      expect.arrayContaining([
        's3:PutObject',
        'events:PutEvents',
        'sqs:SendMessage',
        's3:ListObjectsV2',
        's3:ListObjectVersions',
        's3:DeleteObject',
      ]),
    );
    expect([...kinds('DeadLetter')]).toEqual(expect.arrayContaining(['sqs:ReceiveMessage']));
    // The console's function reads batches and results, and records an override with its audit entry and event.
    expect([...kinds('ConsoleApi')]).toEqual(
      expect.arrayContaining([
        'dynamodb:Query',
        's3:GetObject',
        'dynamodb:PutItem',
        'secretsmanager:GetSecretValue',
        'events:PutEvents',
        's3:PutObject',
      ]),
    );
    expect([...kinds('Dispatch')]).toEqual(
      expect.arrayContaining(['dynamodb:BatchGetItem', 'dynamodb:Query', 'sqs:SendMessageBatch']),
    );
    expect([...kinds('PortfolioSchedules')]).toEqual(
      expect.arrayContaining(['s3:GetObject', 'scheduler:CreateSchedule']),
    );
    expect(requests.some((request) => request.action === 'kms:Decrypt')).toBe(true);
  });

  it('allows every one of them: identity, bucket, queue and key policies', async () => {
    const denials = await iam.evaluate(requests);

    expect(requests.length).toBeGreaterThan(0);
    expect(describeDenials(denials)).toBe('');
  });

  it('keeps the audit log append-only: no function may update or delete an AUDIT# item, only put one', async () => {
    const template = deployed.assembly.template;
    const tableId = Object.entries(template.Resources).find(
      ([, resource]) => resource.Type === 'AWS::DynamoDB::Table',
    )?.[0] as string;
    const table = deployed.resolver().resolveString({ 'Fn::GetAtt': [tableId, 'Arn'] });
    const callers = [...deployed.functions.values()].map(({ definition }) => definition.logicalId);
    const request = (caller: string, action: string, leadingKey: string): IamRequest => ({
      caller,
      action,
      resource: table,
      context: { 'dynamodb:LeadingKeys': [leadingKey] } as unknown as Record<string, string>,
      because: `${action} on ${leadingKey}`,
    });
    const changes = callers.flatMap((caller) =>
      ['dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:PartiQLUpdate'].map(
        (action) => request(caller, action, 'AUDIT#3f2a'),
      ),
    );
    const writers = ['Worker', 'Finalise'].map((name) => deployed.function(name).definition.logicalId);

    const changeDenials = await iam.evaluate(changes);
    const putDenials = await iam.evaluate(
      writers.map((caller) => request(caller, 'dynamodb:PutItem', 'AUDIT#3f2a')),
    );
    // The deny is narrow: the same functions still update their batches' items.
    const rowDenials = await iam.evaluate(
      writers.map((caller) => request(caller, 'dynamodb:UpdateItem', 'BATCH#b1')),
    );

    expect(callers.length).toBeGreaterThanOrEqual(7);
    // Every function of the pipeline has the audit deny; CDK's deploy-time copier of the console's pages has no
    // access to the table at all.
    const copier = (caller: string) => caller.startsWith('CustomCDKBucketDeployment');
    expect(changeDenials.map((denial) => [denial.request.caller, denial.result])).toEqual(
      changes.map((change) => [
        change.caller,
        copier(change.caller) ? 'ImplicitlyDenied' : 'ExplicitlyDenied',
      ]),
    );
    expect(describeDenials(putDenials)).toBe('');
    expect(describeDenials(rowDenials)).toBe('');
  });

  it("refuses the same S3 and SQS calls over plain HTTP (the bucket's and queues' policies are evaluated)", async () => {
    const resourceCalls = requests.filter((request) => /^(s3|sqs):/.test(request.action));
    const plain = resourceCalls.map((request) => ({
      ...request,
      context: { ...request.context, 'aws:SecureTransport': 'false' },
    }));

    const denials = await iam.evaluate(plain);

    expect(resourceCalls.length).toBeGreaterThan(0);
    expect(denials.map((denial) => denial.result)).toEqual(plain.map(() => 'ExplicitlyDenied'));
  });

  it('lets S3 invoke ingest, the policy check and the schedules function, and the Scheduler role invoke ingest, and no other', async () => {
    const invocations = distinctRequests(
      deployed.serviceInvocations.map((invocation) => iam.invocationRequest(invocation)),
    );
    const workerArn = deployed.resolver().resolveString({
      'Fn::GetAtt': [deployed.function('Worker').definition.logicalId, 'Arn'],
    });
    const misdirected = invocations.map((request) => ({ ...request, resource: workerArn }));

    const denials = await iam.evaluate(invocations);
    const misdirectedDenials = await iam.evaluate(misdirected);

    expect(invocations.map((request) => request.caller).sort()).toEqual(
      ['s3.amazonaws.com', 's3.amazonaws.com', 's3.amazonaws.com', schedulerRole()].sort(),
    );
    expect(describeDenials(denials)).toBe('');
    expect(misdirectedDenials).toHaveLength(misdirected.length);
  });

  // The key policy itself lets the worker decrypt the token secret (what grantRead of a secret adds), so without
  // its role's kms:Decrypt only the DynamoDB calls lose their key.
  it.each([
    ['Worker', 'dynamodb:UpdateItem', 'dynamodb '],
    ['Finalise', 's3:PutObject', 's3 PutObject results/'],
    ['Worker', 'kms:Decrypt', 'dynamodb '],
    ['PortfolioSchedules', 'iam:PassRole', 'scheduler '],
    ['ConsoleApi', 'events:PutEvents', 'events '],
  ])(
    'denies the recorded calls once the %s role loses %s (negative control)',
    async (name, action, calls) => {
      const caller = deployed.function(name).definition.logicalId;
      const needing = requests.filter(
        (request) =>
          request.caller === caller && request.action === action && request.because.startsWith(calls),
      );
      const weakened = new TemplateIam(
        withoutGrant(deployed.assembly.template, name, action),
        deployed.resolver(),
      );

      const denials = await weakened.evaluate(needing);

      expect(needing.length).toBeGreaterThan(0);
      expect(denials.map((denial) => denial.request)).toEqual(needing);
      expect(describeDenials(denials)).toContain(`needs ${action}`);
    },
  );
});
