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
 * repeated S3 notification never starts a second batch, whenever it comes: it hashes only what the event carries
 * (the bucket, the key, the event's sequencer, the object's ETag and version), never the clock. Opaque on purpose
 * (no document, no date in it); listings sort batches by their creation time instead.
 */
export function batchIdFor(upload: {
  bucket: string;
  key: string;
  sequencer?: string;
  eTag?: string;
  versionId?: string;
}): string {
  const identity = [
    upload.bucket,
    upload.key,
    upload.sequencer ?? '',
    upload.eTag ?? '',
    upload.versionId ?? '',
  ].join('\n');
  return createHash('sha256').update(identity).digest('hex').slice(0, 24);
}

/** The longest batch id a person may name; ids this pipeline makes are 24 characters. */
export const MAX_BATCH_ID_LENGTH = 64;

/**
 * Whether `value` could be a batch id someone typed: letters, digits, `-` and `_`, at most
 * {@link MAX_BATCH_ID_LENGTH}. Checked before a lookup, so that a pasted document, a path or a megabyte of text
 * never reaches a store query or an error message.
 */
export function isBatchIdShape(value: string): boolean {
  return value.length <= MAX_BATCH_ID_LENGTH && /^[A-Za-z0-9_-]+$/.test(value);
}
