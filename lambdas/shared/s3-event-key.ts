import type { S3EventRecord } from 'aws-lambda';

/** The object key of an S3 notification record: S3 URL-encodes keys in its events, with spaces as '+'. */
export const objectKeyOf = (record: S3EventRecord): string =>
  decodeURIComponent(record.s3.object.key.replace(/\+/g, ' '));
