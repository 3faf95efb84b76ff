import { bureauEndpointOf } from '../../src/domain/bureau/index.ts';
import { lambdaRuntime } from '../shared/lambda-runtime.ts';
import { ingestSettings } from '../shared/pipeline-adapters.ts';
import { createIngestHandler } from './ingest-handler.ts';

const runtime = lambdaRuntime();

export const handler = createIngestHandler({
  ...runtime,
  settings: ingestSettings(runtime.environment.settings, bureauEndpointOf(runtime.environment.bureauBaseUrl)),
});
