import type { S3Event } from 'aws-lambda';

/** An object S3 tells a function about. */
export interface NotifiedObject {
  readonly bucket: string;
  readonly key: string;
  readonly size: number;
  readonly eTag?: string;
  readonly sequencer?: string;
}

/**
 * The event S3 sends a function for a new object (`ObjectCreated:Put`): fauxqs has no bucket notifications, so the
 * local runner and the deployment test deliver this themselves. The key is URL-encoded the way S3 encodes it.
 */
export function objectCreatedEvent(object: NotifiedObject): S3Event {
  return {
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        awsRegion: 'us-east-1',
        eventTime: new Date().toISOString(),
        eventName: 'ObjectCreated:Put',
        userIdentity: { principalId: 'local' },
        requestParameters: { sourceIPAddress: '127.0.0.1' },
        responseElements: { 'x-amz-request-id': 'local', 'x-amz-id-2': 'local' },
        s3: {
          s3SchemaVersion: '1.0',
          configurationId: 'local',
          bucket: {
            name: object.bucket,
            ownerIdentity: { principalId: 'local' },
            arn: `arn:aws:s3:::${object.bucket}`,
          },
          object: {
            key: encodeURIComponent(object.key).replace(/%2F/g, '/').replace(/%20/g, '+'),
            size: object.size,
            eTag: object.eTag ?? '',
            sequencer: object.sequencer ?? '',
          },
        },
      },
    ],
  };
}
