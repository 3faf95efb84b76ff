import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { FakeCloudFormation } from '../factories/fake-cloudformation.ts';
import { parseSummary, startTestPipeline, type TestPipeline, writeCsv } from '../factories/pipeline.ts';
import { runCli } from '../factories/run-cli.ts';

/**
 * The local services plays the deployed one: its handlers stand for the Lambda functions (the upload watcher for
 * the S3 notification), and the CLI reaches it only through the AWS SDK's standard endpoint settings and the
 * stack's outputs, exactly as it reaches AWS.
 */
let test: TestPipeline;
let cloudFormation: FakeCloudFormation;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  test = await startTestPipeline({
    watchUploads: true,
    settings: { maxAttempts: 1, freshnessHours: 0 },
  });
  const { resources, endpoints } = test.pipeline.stack;
  cloudFormation = await FakeCloudFormation.start(
    new Map<string, Record<string, string>>([
      [
        'credit-screen-prod',
        {
          BucketName: resources.bucketName,
          TableName: resources.tableName,
          WorkQueueUrl: resources.workQueueUrl,
          FinaliseQueueUrl: resources.finaliseQueueUrl,
          DispatchQueueUrl: resources.dispatchQueueUrl,
          TokenSecretArn: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:token',
        },
      ],
      ['other-stack', { Something: 'else' }],
      ['older-stack', { BucketName: 'b', TableName: 't', WorkQueueUrl: 'w', FinaliseQueueUrl: 'f' }],
    ]),
  );
  env = {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.url,
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_S3: endpoints.s3AndSqs,
    AWS_ENDPOINT_URL_SQS: endpoints.s3AndSqs,
  };
}, 60_000);
afterAll(async () => {
  await Promise.all([test?.stop(), cloudFormation?.close()]);
});

function cli(args: readonly string[], cwd?: string) {
  return runCli(args, { env, cwd });
}

describe('credit-screen against a deployed stack (--stack)', () => {
  let batchId: string;
  let out: string;
  const documents = distinctDocuments(40, 'deployed');

  it('submit uploads the list, follows the batch and downloads its results', async () => {
    out = await mkdtemp(join(tmpdir(), 'credit-screen-submit-'));
    test.emulator.configure({ errorRate: 0.3 });

    const result = await cli([
      'submit',
      await writeCsv('clientes.csv', customerListCsv(documents)),
      '--stack',
      'credit-screen-prod',
      '--out',
      out,
    ]);

    // Under an opaque key: the file's name (which could be a document) stays on this machine.
    expect(result.stderr).toMatch(
      /uploaded to s3:\/\/credit-screen-local\/incoming\/a\/\d{8}T\d{9}Z-[a-z]{12}\.csv\n/,
    );
    expect(result.code).toBe(0);
    batchId = /batch (\S+) started/.exec(result.stderr)?.[1] as string;
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ batchId, status: 'completed', revision: 1 });
    expect(parseSummary(await readFile(join(out, 'summary.csv'), 'utf8'))).toHaveLength(documents.length);
    expect(manifest.counts.failed).toBeGreaterThan(0);
  }, 120_000);

  it('batches and status read the same batch from the stack', async () => {
    const list = await cli(['batches', '--stack', 'credit-screen-prod', '--json']);
    const status = await cli(['status', batchId, '--stack', 'credit-screen-prod']);

    expect(JSON.parse(list.stdout).map((batch: { batchId: string }) => batch.batchId)).toContain(batchId);
    expect(status.stdout).toContain(`batch ${batchId}: completed`);
    expect(status.stdout).toMatch(/rows\s+40: screened \d+/);
  }, 60_000);

  it("check quotes against the stack's stored reports: the ones screened are reused, the rest bought", async () => {
    const screened = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')).counts.screened as number;

    const checked = await cli([
      'check',
      await writeCsv('again.csv', customerListCsv(documents)),
      '--stack',
      'credit-screen-prod',
      '--json',
    ]);

    expect(checked.code).toBe(0);
    expect(JSON.parse(checked.stdout).quote).toMatchObject({
      unique: 40,
      reusable: screened,
      to_buy: 40 - screened,
    });
  }, 60_000);

  it('redrive sends the failed documents back and downloads revision 2 with none failed', async () => {
    test.emulator.configure({ errorRate: 0 });

    const result = await cli(['redrive', batchId, '--stack', 'credit-screen-prod', '--out', out]);

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`batch ${batchId}: \\d+ failed documents sent back \\(revision 2\\)`),
    );
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ revision: 2, counts: { screened: documents.length, failed: 0 } });
    for (const document of documents) expect(test.emulator.stats().chargesByDocument[document]).toBe(1);
  }, 120_000);

  it('cancel of a finished batch, an unknown batch, and an unknown, foreign or outdated stack each fail with one line', async () => {
    const finished = await cli(['cancel', batchId, '--stack', 'credit-screen-prod']);
    const unknown = await cli(['status', '20260101-nope', '--stack', 'credit-screen-prod']);
    const missing = await cli(['batches', '--stack', 'no-such-stack']);
    const foreign = await cli(['batches', '--stack', 'other-stack']);
    const older = await cli(['batches', '--stack', 'older-stack']);

    expect([finished.code, unknown.code, missing.code, foreign.code, older.code]).toEqual([2, 2, 2, 2, 2]);
    expect(finished.stderr.trim()).toBe(`credit-screen: batch ${batchId} has already finished`);
    expect(unknown.stderr.trim()).toBe('credit-screen: no batch 20260101-nope in stack credit-screen-prod');
    expect(missing.stderr.trim()).toBe(
      'credit-screen: cannot read stack no-such-stack: Stack with id no-such-stack does not exist',
    );
    expect(foreign.stderr).toContain('is not a credit-screen stack: it has no output BucketName');
    expect(older.stderr.trim()).toBe(
      'credit-screen: stack older-stack was deployed by an earlier credit-screen: it has no output DispatchQueueUrl; deploy it again (npx cdk deploy)',
    );
  }, 60_000);
});
