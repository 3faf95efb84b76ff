import { S3Client } from '@aws-sdk/client-s3';
import { S3DownloadLinks } from '../../src/adapters/aws/s3-download-links.ts';
import { S3UploadTickets } from '../../src/adapters/aws/s3-upload-tickets.ts';
import { jwtClaimsAuthenticator } from '../../src/api/jwt-claims-authenticator.ts';
import { policyNames } from '../../src/application/policies/policy-names.ts';
import { lambdaRuntime } from '../shared/lambda-runtime.ts';
import { createConsoleApiHandler } from './console-api-handler.ts';

const runtime = lambdaRuntime();
const s3 = new S3Client({});

export const handler = createConsoleApiHandler({
  authenticator: jwtClaimsAuthenticator,
  batches: runtime,
  review: { ...runtime, sla: runtime.environment.settings.reviewSla },
  subjects: runtime,
  spend: { budget: runtime.budget, bureaus: runtime.environment.settings.bureaus },
  results: { ...runtime, downloads: new S3DownloadLinks(s3, runtime.environment.bucketName) },
  policies: () => policyNames(runtime.objects),
  // The pages' uploads go straight to S3 under incoming/, signed with this function's role (allowed that put only).
  uploadTickets: new S3UploadTickets(s3, runtime.environment.bucketName),
  logger: runtime.logger,
});
