import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { eventBridgePublisher } from '../../src/adapters/aws/eventbridge-publisher.ts';
import { createLambdaLogger } from '../../src/adapters/aws/powertools-logger.ts';
import { S3ObjectStore } from '../../src/adapters/aws/s3-object-store.ts';
import { zenCreditPolicyLoader } from '../../src/adapters/decision/zen-credit-policy.ts';
import { readPipelineEnvironment } from '../shared/environment.ts';
import { createPolicyCheckHandler } from './policy-check-handler.ts';

// This function reads a policy, writes its verdict and may publish one event: only those two clients are built.
const environment = readPipelineEnvironment();

export const handler = createPolicyCheckHandler({
  objects: new S3ObjectStore({ client: new S3Client({}), bucket: environment.bucketName }),
  policyLoader: zenCreditPolicyLoader,
  events: eventBridgePublisher({
    client: new EventBridgeClient({}),
    eventBusName: environment.eventBusName,
    // A refused policy names no document.
    fullDocuments: false,
  }),
  logger: createLambdaLogger(),
});
