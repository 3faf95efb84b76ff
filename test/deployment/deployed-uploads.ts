import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { expect } from 'vitest';
import { objectCreatedEvent } from '../../cli/local/s3-notification.ts';
import { type BatchManifest, resultKeys } from '../../src/contract/index.ts';
import { customerListCsv } from '../factories/customer-lists.ts';
import type { DeployedStack } from './deployed-stack.ts';

/** Where `npm run synth` writes the cloud assembly the deployment tests run. */
export const CDK_OUT = 'cdk.out';
// Generous: in `npm test` this shares two cores with every other suite.
const BATCH_TIMEOUT_MS = 90_000;

/** Synthesizes the app as `npm test` does before vitest, when a test file runs alone. */
export function synthesizeIfMissing(): void {
  if (existsSync(`${CDK_OUT}/CreditScreen.template.json`)) return;
  const synth = spawnSync('npm', ['run', 'synth'], { stdio: 'inherit' });
  if (synth.status !== 0) throw new Error('npm run synth failed');
}

/** An object of the deployed bucket as text; null when there is none. */
export async function readObject(deployed: DeployedStack, key: string): Promise<string | null> {
  const { s3 } = deployed.stack.clients;
  try {
    const object = await s3.send(
      new GetObjectCommand({ Bucket: deployed.stack.resources.bucketName, Key: key }),
    );
    return (await object.Body?.transformToString('utf8')) ?? '';
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') return null;
    throw error;
  }
}

/** The keys of the deployed bucket under a prefix (the first thousand). */
export async function keysUnder(deployed: DeployedStack, prefix: string): Promise<string[]> {
  const listed = await deployed.stack.clients.s3.send(
    new ListObjectsV2Command({ Bucket: deployed.stack.resources.bucketName, Prefix: prefix }),
  );
  return (listed.Contents ?? []).flatMap((object) => (object.Key === undefined ? [] : [object.Key]));
}

/** Waits for the manifest the bundled finaliser writes last. */
export async function manifestOf(deployed: DeployedStack, batchId: string): Promise<BatchManifest> {
  const deadline = Date.now() + BATCH_TIMEOUT_MS;
  for (;;) {
    const text = await readObject(deployed, resultKeys(batchId).manifest);
    if (text !== null) return JSON.parse(text) as BatchManifest;
    if (Date.now() > deadline)
      throw new Error(
        `batch ${batchId} has no manifest; the functions said:\n${deployed.output.slice(-30).join('\n')}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Puts a customer list under `incoming/a/` and gives the bundled ingest S3's event for it. */
export async function uploadList(
  deployed: DeployedStack,
  documents: readonly string[],
  metadata: Record<string, string> = {},
): Promise<string> {
  const body = customerListCsv(documents);
  const key = `incoming/a/${randomUUID()}.csv`;
  await deployed.stack.clients.s3.send(
    new PutObjectCommand({
      Bucket: deployed.stack.resources.bucketName,
      Key: key,
      Body: body,
      Metadata: metadata,
    }),
  );
  const outcome = (await deployed.notifyFromBucket(
    'Ingest',
    objectCreatedEvent({ bucket: deployed.stack.resources.bucketName, key, size: Buffer.byteLength(body) }),
  )) as { batchId: string; outcome: string }[];
  expect(outcome[0]?.outcome).toBe('queued');
  return outcome[0]?.batchId ?? '';
}
