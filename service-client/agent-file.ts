import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { RequestValidationError } from './request-validation.ts';

/**
 * A file to train an agent with: a path on disk, bytes in memory, or a stream. Only a path's name is known
 * without help, so buffers and streams take a `filename`.
 */
export type AgentFileSource =
  | { readonly path: string; readonly filename?: string; readonly contentType?: string }
  | { readonly data: Uint8Array | Blob; readonly filename: string; readonly contentType?: string }
  | {
      readonly stream: Readable | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;
      readonly filename: string;
      readonly contentType?: string;
    };

/**
 * Largest file the client will upload. The service's own limit is not specified; this bound keeps a stream
 * (which must be buffered, because multipart needs a sized part) from exhausting memory.
 */
export const DEFAULT_MAX_AGENT_FILE_BYTES = 100 * 1024 * 1024;

const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

function tooLarge(size: number, limit: number): RequestValidationError {
  return new RequestValidationError(`the file has ${size} bytes, more than the ${limit}-byte limit`, 'file');
}

async function collect(
  stream: Readable | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  limit: number,
): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Uint8Array | string>) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.byteLength;
    if (size > limit) throw tooLarge(size, limit);
    chunks.push(bytes);
  }
  return chunks;
}

/**
 * The multipart body of an upload: one part named `file`. A path is read lazily by fetch (not loaded into
 * memory first); a stream is collected up to `maxBytes`.
 */
export async function agentFileForm(source: AgentFileSource, maxBytes: number): Promise<FormData> {
  const form = new FormData();
  if ('path' in source) {
    const info = await stat(source.path).catch((error: NodeJS.ErrnoException) => {
      throw new RequestValidationError(`cannot read ${source.path}: ${error.code ?? error.message}`, 'file');
    });
    if (!info.isFile()) throw new RequestValidationError(`${source.path} is not a file`, 'file');
    if (info.size > maxBytes) throw tooLarge(info.size, maxBytes);
    const blob = await openAsBlob(source.path, { type: source.contentType ?? DEFAULT_CONTENT_TYPE });
    form.append('file', blob, source.filename ?? basename(source.path));
    return form;
  }
  if (source.filename.trim() === '')
    throw new RequestValidationError('filename must not be empty', 'filename');
  const type = source.contentType ?? DEFAULT_CONTENT_TYPE;
  if ('data' in source) {
    const size = source.data instanceof Blob ? source.data.size : source.data.byteLength;
    if (size > maxBytes) throw tooLarge(size, maxBytes);
    const blob = source.data instanceof Blob ? source.data : new Blob([source.data], { type });
    form.append('file', blob, source.filename);
    return form;
  }
  form.append('file', new Blob(await collect(source.stream, maxBytes), { type }), source.filename);
  return form;
}
