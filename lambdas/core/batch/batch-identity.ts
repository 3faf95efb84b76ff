import { createHash } from 'node:crypto';
import { BUREAUS, type Bureau } from '../report/index.ts';

/** Prefix under which customer lists are uploaded; `incoming/a/…` and `incoming/b/…` choose the bureau. */
export const INCOMING_PREFIX = 'incoming/';

/** The bureau named by an upload key (`incoming/a/list.csv`), or the deployment's default. */
export function bureauForKey(key: string, defaultBureau: Bureau): Bureau {
  const segment = key.startsWith(INCOMING_PREFIX)
    ? key.slice(INCOMING_PREFIX.length).split('/')[0]
    : undefined;
  return BUREAUS.includes(segment as Bureau) && key.split('/').length > 2
    ? (segment as Bureau)
    : defaultBureau;
}

/**
 * A batch id that is the same for the same upload event and different for every new upload of the same file, so a
 * repeated S3 notification never starts a second batch: it hashes the bucket, the key and the event's sequencer
 * (or the object's ETag and version when there is no sequencer). Sortable by day for people reading listings.
 */
export function batchIdFor(
  upload: { bucket: string; key: string; sequencer?: string; eTag?: string; versionId?: string },
  now: Date,
): string {
  const identity = [
    upload.bucket,
    upload.key,
    upload.sequencer ?? '',
    upload.eTag ?? '',
    upload.versionId ?? '',
  ].join('\n');
  const digest = createHash('sha256').update(identity).digest('hex').slice(0, 16);
  return `${now.toISOString().slice(0, 10).replaceAll('-', '')}-${digest}`;
}
