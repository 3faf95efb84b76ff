/**
 * AWS misbehaving too, on top of the bureau's faults: DynamoDB's transaction conflicts (strict mode), throttling
 * and 500s, S3 SlowDown, SQS 500s, and work messages delivered twice. The SDK retries what AWS says to retry; what
 * gets through its retries is the pipeline's to survive.
 */
export const AWS_FAULTS = {
  seed: 'fault injection',
  faults: {
    dynamodb: { throttling: 0.01, internalServerError: 0.005 },
    s3: { slowDown: 0.01 },
    sqs: { internalFailure: 0.005, duplicateDelivery: 0.05 },
  },
} as const;
