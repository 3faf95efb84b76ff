import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { S3Client } from '@aws-sdk/client-s3';
import { CognitoReviewers } from '../../src/adapters/aws/cognito-reviewers.ts';
import { S3DownloadLinks } from '../../src/adapters/aws/s3-download-links.ts';
import { S3UploadTickets } from '../../src/adapters/aws/s3-upload-tickets.ts';
import { jwtClaimsAuthenticator } from '../../src/api/jwt-claims-authenticator.ts';
import { policyNames } from '../../src/application/policies/policy-names.ts';
import { CONSOLE_ENVIRONMENT_VARIABLES, CONSOLE_ROUTES } from '../../src/contract/index.ts';
import { lambdaRuntime } from '../shared/lambda-runtime.ts';
import { createConsoleApiHandler } from './console-api-handler.ts';

const runtime = lambdaRuntime();
const s3 = new S3Client({});
const userPoolId = process.env[CONSOLE_ENVIRONMENT_VARIABLES.userPoolId];
if (!userPoolId) throw new Error(`${CONSOLE_ENVIRONMENT_VARIABLES.userPoolId} is not set`);

export const handler = createConsoleApiHandler({
  authenticator: jwtClaimsAuthenticator,
  batches: runtime,
  review: {
    ...runtime,
    sla: runtime.environment.settings.reviewSla,
    // Whoever may read the review queue reviews: a manager gives rows to them.
    reviewers: new CognitoReviewers(
      new CognitoIdentityProviderClient({}),
      userPoolId,
      CONSOLE_ROUTES.review.roles,
    ),
  },
  subjects: runtime,
  spend: { budget: runtime.budget, bureaus: runtime.environment.settings.bureaus },
  results: { ...runtime, downloads: new S3DownloadLinks(s3, runtime.environment.bucketName) },
  policies: () => policyNames(runtime.objects),
  // The pages' uploads go straight to S3 under incoming/, signed with this function's role (allowed that put only).
  uploadTickets: new S3UploadTickets(s3, runtime.environment.bucketName),
  logger: runtime.logger,
});
