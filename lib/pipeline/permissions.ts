import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { batchPolicyKey, policyVerdictKey, S3_LAYOUT } from '../../src/contract/index.ts';
import type { PipelineFunctions } from './functions.ts';
import type { PipelineQueues } from './queues.ts';
import { grantTokenSecretKey, type TokenSecretProps } from './token-secret.ts';

/** What the functions are granted access to. */
export interface GrantedResources {
  readonly key: kms.IKey;
  readonly bucket: s3.Bucket;
  readonly table: dynamodb.Table;
  readonly queues: PipelineQueues;
  readonly tokenSecret: secretsmanager.ISecret;
  readonly eventBus: events.IEventBus;
}

/**
 * Least privilege: each function gets what its use case touches (the portfolio-schedules function gets its grants
 * with the portfolios).
 */
export function grantLeastPrivilege(
  scope: Construct,
  functions: PipelineFunctions,
  resources: GrantedResources,
  tokenSecretProps: TokenSecretProps,
): void {
  const { bucket, table, queues, eventBus } = resources;
  const { ingest, worker, finalise, deadLetter } = functions;
  bucket.grantRead(ingest, `${S3_LAYOUT.incoming}*`);
  bucket.grantRead(ingest, `${S3_LAYOUT.portfolios}*`);
  bucket.grantPut(ingest, `${S3_LAYOUT.work}*`);
  // The policy an upload names, and whether the batch already keeps its copy of it (a repeated ingest).
  bucket.grantRead(ingest, `${S3_LAYOUT.policies}*`);
  bucket.grantRead(ingest, `${S3_LAYOUT.work}*`);
  table.grantReadWriteData(ingest);
  queues.work.grantSendMessages(ingest);
  queues.finalise.grantSendMessages(ingest);
  queues.dispatch.grantSendMessages(ingest);

  table.grantReadWriteData(worker);
  // Read as well as written: a worker settles a row from the answer an earlier attempt persisted (grantRead's
  // ListBucket lets a missing answer read as 404, not 403).
  bucket.grantRead(worker, `${S3_LAYOUT.raw}*`);
  bucket.grantPut(worker, `${S3_LAYOUT.raw}*`);
  resources.tokenSecret.grantRead(worker);
  grantTokenSecretKey(scope, worker, tokenSecretProps);
  queues.finalise.grantSendMessages(worker);
  // A row waiting for another batch's purchase of its document comes back as a new, delayed message.
  queues.work.grantSendMessages(worker);
  // Budget alerts (BudgetExhausted at 80 % and 100 % of a cap).
  eventBus.grantPutEventsTo(worker);
  // A row is decided as it settles, by its batch's own copy of its policy (and nothing else of work/).
  bucket.grantRead(worker, batchPolicyKey('*'));

  table.grantReadWriteData(finalise);
  bucket.grantRead(finalise, `${S3_LAYOUT.work}*`);
  bucket.grantPut(finalise, `${S3_LAYOUT.results}*`);
  eventBus.grantPutEventsTo(finalise);
  // A big batch is finalised in parts: the finaliser queues them, writes them under finalise-parts/, reads them
  // back to join them and removes them (src/application/finalise/finalise-parts.ts).
  queues.finalise.grantSendMessages(finalise);
  bucket.grantRead(finalise, `${S3_LAYOUT.finaliseParts}*`);
  bucket.grantPut(finalise, `${S3_LAYOUT.finaliseParts}*`);
  bucket.grantDelete(finalise, `${S3_LAYOUT.finaliseParts}*`);

  table.grantReadWriteData(deadLetter);
  // Whether a dead-lettered row's answer was persisted (it was then charged).
  bucket.grantRead(deadLetter, `${S3_LAYOUT.raw}*`);
  queues.finalise.grantSendMessages(deadLetter);

  grantSweeper(functions, resources);
  grantDispatch(functions, resources);

  // The policy check reads the policy, keeps its verdict where ingest reads it, and may announce a rejection.
  bucket.grantRead(functions.policyCheck, `${S3_LAYOUT.policies}*`);
  bucket.grantPut(functions.policyCheck, policyVerdictKey('*'));
  eventBus.grantPutEventsTo(functions.policyCheck);
}

/** The dispatcher reads a batch and its rows, sends their work messages, and splits a whole batch into parts. */
function grantDispatch(functions: PipelineFunctions, resources: GrantedResources): void {
  const { dispatch } = functions;
  resources.table.grant(dispatch, 'dynamodb:Query', 'dynamodb:BatchGetItem');
  resources.key.grantEncryptDecrypt(dispatch);
  resources.queues.work.grantSendMessages(dispatch);
  resources.queues.dispatch.grantSendMessages(dispatch);
}

/**
 * The sweeper lists batches, queries the claimed-rows index, releases claims, asks for finalisations and renews
 * dispatches.
 */
function grantSweeper(functions: PipelineFunctions, resources: GrantedResources): void {
  const { sweeper } = functions;
  resources.table.grant(
    sweeper,
    'dynamodb:Query',
    'dynamodb:GetItem',
    'dynamodb:BatchGetItem',
    'dynamodb:UpdateItem',
  );
  resources.key.grantEncryptDecrypt(sweeper);
  resources.queues.work.grantSendMessages(sweeper);
  resources.queues.finalise.grantSendMessages(sweeper);
  // A running batch whose messages would soon expire has its queued rows dispatched again.
  resources.queues.dispatch.grantSendMessages(sweeper);
}
