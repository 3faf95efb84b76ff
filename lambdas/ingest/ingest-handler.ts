import type { S3Event } from 'aws-lambda';
import {
  type IngestDependencies,
  type IngestOutcome,
  ingestUpload,
} from '../../src/application/ingest/ingest-upload.ts';
import {
  isPortfolioRunRequest,
  type PortfolioRunOutcome,
  type PortfolioRunRequest,
  runPortfolio,
} from '../../src/application/ingest/run-portfolio.ts';
import { INCOMING_PREFIX } from '../../src/domain/batch/index.ts';
import { objectKeyOf } from '../shared/s3-event-key.ts';

/**
 * The ingest Lambda: one batch per uploaded object under `incoming/`, or one re-screen of a portfolio when its
 * schedule (or a person) invokes it with `{ "portfolio": "<name>" }`.
 */
export function createIngestHandler(deps: IngestDependencies) {
  return async (event: S3Event | PortfolioRunRequest): Promise<(IngestOutcome | PortfolioRunOutcome)[]> => {
    if (isPortfolioRunRequest(event)) return [await runPortfolio(event, deps, deps.now)];
    const outcomes: IngestOutcome[] = [];
    for (const record of event.Records) {
      const key = objectKeyOf(record);
      if (!key.startsWith(INCOMING_PREFIX)) continue;
      outcomes.push(
        await ingestUpload(
          {
            bucket: record.s3.bucket.name,
            key,
            sequencer: record.s3.object.sequencer,
            eTag: record.s3.object.eTag,
            versionId: record.s3.object.versionId,
          },
          deps,
        ),
      );
    }
    return outcomes;
  };
}
