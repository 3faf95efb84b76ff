import { randomBytes } from 'node:crypto';
import type { DownloadLinks, ObjectStore } from '../../src/domain/ports/index.ts';

/** How long a local link works, unused; it works once. */
const LINK_MS = 5 * 60_000;
/** Where the local console serves the links (not under /api: the token in the path is the permission). */
export const DOWNLOAD_PATH = '/files/';

interface Link {
  readonly key: string;
  readonly fileName: string;
  readonly expiresAt: number;
}

/**
 * The local console's links to result files, as presigned URLs are in AWS: a random path that works once within
 * five minutes, serving the object from the local bucket. The report page is shown inline under its own policy
 * (no script, sandboxed: an opaque origin that can reach neither the console nor its session).
 */
export class LocalDownloadLinks implements DownloadLinks {
  readonly #links = new Map<string, Link>();

  constructor(
    private readonly objects: Pick<ObjectStore, 'read'>,
    private readonly origin: () => string,
    private readonly now: () => number = Date.now,
  ) {}

  async linkTo(key: string, fileName: string): Promise<{ url: string; expiresAt: string }> {
    const token = randomBytes(32).toString('base64url');
    const expiresAt = this.now() + LINK_MS;
    this.#links.set(token, { key, fileName, expiresAt });
    return { url: `${this.origin()}${DOWNLOAD_PATH}${token}`, expiresAt: new Date(expiresAt).toISOString() };
  }

  /** The answer to a link's request: the file, or 404 for a link unknown, used or expired. */
  serve(token: string): Response {
    const link = this.#links.get(token);
    this.#links.delete(token);
    if (link === undefined || link.expiresAt < this.now())
      return new Response('this link was used already or has expired; ask the console for a new one', {
        status: 404,
        headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
      });
    const page = link.fileName.endsWith('.html');
    const objects = this.objects;
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        for await (const chunk of objects.read(link.key)) controller.enqueue(chunk);
        controller.close();
      },
    });
    return new Response(body, {
      headers: {
        'Content-Type': page ? 'text/html; charset=utf-8' : 'application/octet-stream',
        'Content-Disposition': `${page ? 'inline' : 'attachment'}; filename="${link.fileName}"`,
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        ...(page
          ? {
              'Content-Security-Policy':
                "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'",
            }
          : {}),
      },
    });
  }
}
