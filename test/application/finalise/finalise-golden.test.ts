import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type DecidedBy, generatedBatch } from '../../../bench/generated-batch.ts';
import { handleFinaliseMessage } from '../../../src/application/finalise/finalise-batch.ts';
import { resultKeys } from '../../../src/contract/index.ts';
import type { FinaliseMessage } from '../../../src/domain/batch/index.ts';

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/**
 * What the finaliser wrote for the generated batch of 5,000 rows (bench/generated-batch.ts) before it wrote big
 * batches in parts (commit 9486d09, one pass): md5 of `summary.csv` and of `reports.jsonl`.
 */
const BEFORE_PARTS: Record<DecidedBy, { summary: string; reports: string }> = {
  none: { summary: '87e0971f859f68b1c02a62405f49a88c', reports: 'd06ee4a8098a21b6ee07b42f6e4b007b' },
  worker: { summary: '71fa43df7fe16c2c57110dfbedc92c22', reports: '917fe5b0f7ff407090feba28505041e5' },
  finaliser: { summary: '71fa43df7fe16c2c57110dfbedc92c22', reports: '917fe5b0f7ff407090feba28505041e5' },
};

/** Finalises the generated batch as the queue would, in parts of `partRows`; its summary and reports. */
async function finalisedInParts(decidedBy: DecidedBy, partRows: number) {
  const batchId = `golden-${decidedBy}`;
  const { deps, objects } = await generatedBatch({ batchId, rows: 5_000, decidedBy });
  const queue: FinaliseMessage[] = [{ version: 1, batchId }];
  const finalise = {
    ...deps,
    partRows,
    queue: { sendFinalise: async (m: FinaliseMessage) => void queue.push(m) },
  };
  for (let message = queue.shift(); message !== undefined; message = queue.shift())
    await handleFinaliseMessage(message, finalise);
  const keys = resultKeys(batchId);
  return {
    summary: (await objects.readTextIfExists(keys.summary)) ?? '',
    reports: (await objects.readTextIfExists(keys.reports)) ?? '',
  };
}

describe('the finaliser in parts against the finaliser before parts', () => {
  it.each(['none', 'worker', 'finaliser'] as const)(
    'writes the same summary.csv and reports.jsonl, byte for byte (rows decided by: %s)',
    async (decidedBy) => {
      const files = await finalisedInParts(decidedBy, 700);

      expect(md5(files.summary)).toBe(BEFORE_PARTS[decidedBy].summary);
      expect(md5(files.reports)).toBe(BEFORE_PARTS[decidedBy].reports);
    },
    60_000,
  );
});
