import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { LocalStateDirectory } from './local-state.ts';

/** The commands after which an object of the bucket is new or changed. */
const WRITES = new Set(['PutObjectCommand', 'CompleteMultipartUploadCommand', 'CopyObjectCommand']);
/** The command after which an object is gone (an erasure removes raw answers and files that name a person). */
const DELETE = 'DeleteObjectCommand';

interface WriteInput {
  readonly Bucket?: string;
  readonly Key?: string;
}

/**
 * Write-ahead on disk, as S3 gives it in AWS: every object `client` puts into `bucket` (an upload, a paid raw
 * answer, a result file) is kept in the state directory before the put returns to its caller (and one it deletes is
 * deleted there before the delete returns), so what the caller
 * does next (ingest the upload, settle the row, finalise) only ever relies on what a run killed with -9 keeps.
 * fauxqs keeps its bucket in memory only and has no persistence of its own.
 *
 * The object is read back from the bucket with `direct` (a client that adds no fault of its own) rather than taken
 * from the request, whose body may be a stream already consumed; and the writes of one key are made one after the
 * other, each reading the object once its put has returned, so when puts of one key race, the file ends as the
 * object ends. A put whose object cannot be kept fails, as a failed S3 write does: its caller retries it.
 */
export function writeBucketThrough(
  client: S3Client,
  direct: S3Client,
  bucket: string,
  state: LocalStateDirectory,
): void {
  const pending = new Map<string, Promise<unknown>>();
  const keep = async (key: string): Promise<void> => {
    const object = await direct.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    await state.keepObject(key, (await object.Body?.transformToByteArray()) ?? new Uint8Array());
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const input = args.input as WriteInput;
      const command = context.commandName ?? '';
      if ((!WRITES.has(command) && command !== DELETE) || input.Bucket !== bucket || input.Key === undefined)
        return result;
      const key = input.Key;
      if (command === DELETE) {
        // Gone from the bucket, gone from the disk before the delete returns: a kill cannot bring it back at the
        // next start.
        await (pending.get(key) ?? Promise.resolve()).catch(() => undefined);
        await state.forgetObject(key);
        return result;
      }
      const kept = (pending.get(key) ?? Promise.resolve()).catch(() => undefined).then(() => keep(key));
      pending.set(key, kept);
      try {
        await kept;
      } catch (error) {
        throw new Error(
          `s3://${bucket}/${key} was written but could not be kept in ${state.directory}: ${(error as Error).message}`,
        );
      } finally {
        if (pending.get(key) === kept) pending.delete(key);
      }
      return result;
    },
    { step: 'initialize', name: 'creditScreenWriteThroughToDisk' },
  );
}
