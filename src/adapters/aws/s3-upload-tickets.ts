import type { S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import type { UploadTicket, UploadTickets } from '../../domain/ports/index.ts';

/** How long a ticket may be used: long enough to pick up a slow upload's start, short enough to be worthless later. */
const TICKET_SECONDS = 300;

/**
 * Upload tickets as S3 presigned POSTs: the policy S3 enforces names the bucket, the exact key and metadata, and a
 * content-length range of 1 byte to `maxBytes`; S3 refuses any other object. Signed with the function's own
 * credentials (its role must allow the put), with no call to S3.
 */
export class S3UploadTickets implements UploadTickets {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly now: () => number = Date.now,
  ) {}

  async ticketFor(upload: {
    readonly key: string;
    readonly metadata: Readonly<Record<string, string>>;
    readonly maxBytes: number;
  }): Promise<UploadTicket> {
    const metadata = Object.fromEntries(
      Object.entries(upload.metadata).map(([name, value]) => [`x-amz-meta-${name}`, value]),
    );
    // The presigner's release pins a client-s3 one patch behind ours: the same client, across the version line.
    const posted = await createPresignedPost(this.s3 as never, {
      Bucket: this.bucket,
      Key: upload.key,
      Fields: metadata,
      Conditions: [
        ['content-length-range', 1, upload.maxBytes],
        ...Object.entries(metadata).map(([name, value]) => ({ [name]: value })),
      ],
      Expires: TICKET_SECONDS,
    });
    return {
      url: posted.url,
      fields: posted.fields,
      key: upload.key,
      expiresAt: new Date(this.now() + TICKET_SECONDS * 1000).toISOString(),
      maxBytes: upload.maxBytes,
    };
  }
}
