import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Command } from 'commander';
import { sourceNameMetadata, uploadKey, uploadNonce } from '../../src/contract/index.ts';
import type { BatchStore } from '../../src/domain/ports/index.ts';
import { CliError } from '../cli-error.ts';
import { countLines } from '../count-lines.ts';
import { abortOnInterrupt } from '../interruption.ts';
import { downloadBatchResults, waitForBatch } from '../local/batch-results.ts';
import { addTableAction } from '../option-parsers.ts';
import type { CommandOptions } from '../option-types.ts';
import { connectToStack } from '../pipeline-connection.ts';
import { ProgressDisplay } from '../progress-display.ts';
import { asCliError } from '../read-customer-list.ts';
import { checkResultsDirectoryOption, resultsDirectory } from '../results-directory.ts';

/** The batch ingest creates for an uploaded key; S3 notifies ingest, so it appears a moment after the upload. */
async function batchOfUpload(
  store: BatchStore,
  key: string,
  deadline: number,
  signal: AbortSignal,
): Promise<string> {
  for (;;) {
    signal.throwIfAborted();
    const found = (await store.listBatches(50)).find((batch) => batch.sourceKey === key);
    if (found) return found.batchId;
    if (Date.now() > deadline)
      throw new CliError(`no batch started for ${key}: is the stack's upload notification in place?`);
    await sleep(500);
  }
}

async function submit(file: string, options: CommandOptions<'submit'>): Promise<void> {
  try {
    if (!(await stat(file)).isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' });
  } catch (error) {
    throw asCliError(file, error);
  }
  // Real credits are spent once the file is up: the results must have somewhere to go.
  await checkResultsDirectoryOption(options.out);
  const connection = await connectToStack(options.stack);
  const s3 = new S3Client({});
  const interruption = abortOnInterrupt('stopped following; the batch goes on in the stack');
  const progress = new ProgressDisplay();
  try {
    // The same place a customer drops a file (the bureau is the folder), under an opaque name: never a document.
    const key = uploadKey(options.bureau, basename(file), new Date(), uploadNonce());
    await new Upload({
      client: s3,
      params: {
        Bucket: connection.objects.bucket,
        Key: key,
        Body: createReadStream(file),
        // The name the report's title shows (masked when it holds a document): the key cannot hold it.
        Metadata: { ...sourceNameMetadata(basename(file)) },
      },
    }).done();
    process.stderr.write(`uploaded to s3://${connection.objects.bucket}/${key}\n`);
    const batchId = await batchOfUpload(
      connection.store,
      key,
      Date.now() + options.timeout * 1000,
      interruption.signal,
    );
    process.stderr.write(`batch ${batchId} started\n`);
    await waitForBatch(connection.store, batchId, {
      signal: interruption.signal,
      pollMs: 1000,
      onProgress: (state) => progress.update(state.settledRows, state.totalRows, state.status),
    });
    progress.stop();
    const directory = resultsDirectory(options.out, batchId);
    const manifest = await downloadBatchResults(connection.objects, batchId, directory);
    process.stdout.write(
      `${[
        `batch ${batchId}: ${manifest.status} (bureau ${manifest.bureau.toUpperCase()}, ${options.stack})`,
        ...countLines(manifest, `--stack ${options.stack}`),
        `results in ${directory}`,
      ].join('\n')}\n`,
    );
    if (manifest.status === 'file_rejected')
      throw new CliError(`${file}: ${manifest.failure?.message ?? 'refused'}`);
    if (manifest.status === 'token_rejected')
      throw new CliError(
        'the bureau rejected the token: update the stack’s token secret, then redrive the batch',
      );
  } catch (error) {
    progress.stop();
    if (interruption.signal.aborted) throw interruption.signal.reason;
    throw error;
  } finally {
    interruption.release();
    s3.destroy();
    await connection.close();
  }
}

export function registerSubmitCommand(program: Command): void {
  addTableAction(
    program
      .command('submit')
      .description('Upload a customer list to a deployed pipeline, follow the batch and download its results')
      .argument('<file>', 'CSV file of CPFs/CNPJs'),
    'submit',
    async (options, file: string) => submit(file, options),
  );
}
