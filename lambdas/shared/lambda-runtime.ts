import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { HmacDocumentKeys } from '../../src/adapters/audit/hmac-document-keys.ts';
import { eventBridgePublisher } from '../../src/adapters/aws/eventbridge-publisher.ts';
import { createLambdaLogger } from '../../src/adapters/aws/powertools-logger.ts';
import { SecretsManagerTokenSource, secretStringOf } from '../../src/adapters/aws/secrets-manager-token.ts';
import { LazyBureauGateway } from '../../src/adapters/bureau/lazy-bureau-gateway.ts';
import { readPipelineEnvironment } from './environment.ts';
import { bureauTransportSettings, createPipelineAdapters } from './pipeline-adapters.ts';

/**
 * What a deployed function needs, built once per container at cold start: configuration from the environment
 * (a missing setting fails here, by name), SDK clients with the runtime's credentials, and the adapters.
 */
export function lambdaRuntime() {
  const environment = readPipelineEnvironment();
  const clients = {
    dynamo: DynamoDBDocumentClient.from(new DynamoDBClient({}), {
      marshallOptions: { removeUndefinedValues: true },
    }),
    s3: new S3Client({}),
    sqs: new SQSClient({}),
  };
  const adapters = createPipelineAdapters(clients, environment, environment.settings);
  const secrets = new SecretsManagerClient({});
  return {
    environment,
    ...adapters,
    logger: createLambdaLogger(),
    events: eventBridgePublisher({
      client: new EventBridgeClient({}),
      eventBusName: environment.eventBusName,
      fullDocuments: environment.settings.alertFullDocuments,
    }),
    audit: {
      log: adapters.auditLog,
      documentKeys: new HmacDocumentKeys(secretStringOf(secrets, environment.auditKeySecretId)),
    },
    bureau: new LazyBureauGateway(
      new SecretsManagerTokenSource(secrets, environment.tokenSecretId),
      bureauTransportSettings(environment.settings, environment.bureauBaseUrl),
    ),
  };
}
