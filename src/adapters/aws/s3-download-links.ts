import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { DownloadLinks } from '../../domain/ports/index.ts';

/** How long a link to a result file works: long enough to click, short enough not to be shared around. */
const LINK_SECONDS = 300;

/**
 * Result files as presigned S3 GETs: the browser downloads them from S3 itself (a file of millions of rows never
 * passes through the API's 6 MB), as an attachment with the name given, signed by the console function's role
 * (which may read `results/` only).
 */
export class S3DownloadLinks implements DownloadLinks {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly now: () => number = Date.now,
  ) {}

  async linkTo(key: string, fileName: string): Promise<{ url: string; expiresAt: string }> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentDisposition: `attachment; filename="${fileName}"`,
      ResponseCacheControl: 'no-store',
    });
    const url = await getSignedUrl(this.client, command, { expiresIn: LINK_SECONDS });
    return { url, expiresAt: new Date(this.now() + LINK_SECONDS * 1000).toISOString() };
  }
}
