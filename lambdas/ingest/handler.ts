import { lambdaRuntime } from '../adapters/aws/lambda-runtime.ts';
import { createIngestHandler } from './ingest-handler.ts';

const runtime = lambdaRuntime();

export const handler = createIngestHandler({
  ...runtime,
  settings: {
    defaultBureau: runtime.environment.settings.defaultBureau,
    maxRows: runtime.environment.settings.maxRows,
    excelSummary: runtime.environment.settings.excelSummary,
    freshnessHours: runtime.environment.settings.freshnessHours,
  },
});
