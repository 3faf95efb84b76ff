import { lambdaRuntime } from '../adapters/aws/lambda-runtime.ts';
import { ingestSettings } from '../adapters/aws/pipeline-adapters.ts';
import { createIngestHandler } from './ingest-handler.ts';

const runtime = lambdaRuntime();

export const handler = createIngestHandler({
  ...runtime,
  settings: ingestSettings(runtime.environment.settings),
});
