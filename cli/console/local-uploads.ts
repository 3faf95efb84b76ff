import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UploadDependencies } from '../../src/api/upload-routes.ts';
import type { LocalPipeline } from '../local/local-pipeline.ts';
import { writePrivateFile } from '../local/private-files.ts';
import type { PipelineConnection } from '../pipeline-connection.ts';

/**
 * The local console's uploads, on the state's pipeline: a list quoted as `check` quotes it (at the state's prices
 * and rates, its fresh reports reusable), and uploaded as `screen` uploads it (under `incoming/`, its name kept as
 * the source name only), ingested at once by the pipeline's own ingest.
 */
export function localUploads(connection: PipelineConnection, local: LocalPipeline): UploadDependencies {
  const { settings } = local;
  return {
    reportHistory: connection.store,
    quoting: (bureau) => ({
      maxRows: settings.maxRows,
      pricePerQuery: settings.bureaus[bureau].pricePerQuery,
      ratePerSecond: settings.bureaus[bureau].rateLimitPerSecond,
      freshnessHours: settings.freshnessHours,
    }),
    submit: async ({ fileName, bytes, bureau, policy }) => {
      // The pipeline uploads files: the list is written, private, under its own name (which names the batch).
      const folder = await mkdtemp(join(tmpdir(), 'credit-screen-upload-'));
      try {
        const file = join(folder, fileName);
        await writePrivateFile(file, bytes);
        const outcome = await local.submit(file, bureau, policy === null ? {} : { policy });
        return {
          batchId: outcome.batchId,
          outcome: outcome.outcome,
          reason: outcome.outcome === 'file_rejected' ? outcome.reason : null,
        };
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    },
  };
}
