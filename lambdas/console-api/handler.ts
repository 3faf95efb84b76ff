import { S3Client } from '@aws-sdk/client-s3';
import { S3DownloadLinks } from '../../src/adapters/aws/s3-download-links.ts';
import { jwtClaimsAuthenticator } from '../../src/api/jwt-claims-authenticator.ts';
import { lambdaRuntime } from '../shared/lambda-runtime.ts';
import { createConsoleApiHandler } from './console-api-handler.ts';

const runtime = lambdaRuntime();

export const handler = createConsoleApiHandler({
  authenticator: jwtClaimsAuthenticator,
  batches: runtime,
  review: { ...runtime, sla: runtime.environment.settings.reviewSla },
  subjects: runtime,
  spend: { budget: runtime.budget, bureaus: runtime.environment.settings.bureaus },
  results: { ...runtime, downloads: new S3DownloadLinks(new S3Client({}), runtime.environment.bucketName) },
  logger: runtime.logger,
});
