import iconv from 'iconv-lite';
import {
  type CustomerList,
  type CustomerListOptions,
  type CustomerRow,
  openCustomerList,
} from '../../src/domain/intake/index.ts';

/** Streams `bytes` in chunks of `size`, the way a file or S3 body arrives (size 1 crosses every boundary). */
export async function* chunked(bytes: Uint8Array, size = 64 * 1024): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

export const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');
export const utf8WithBom = (text: string): Buffer =>
  Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8(text)]);
export const windows1252 = (text: string): Buffer => iconv.encode(text, 'win1252');

/** Opens a list from bytes and reads every row. */
export async function readAll(
  bytes: Uint8Array,
  options: CustomerListOptions & { chunkSize?: number } = {},
): Promise<{ list: CustomerList; rows: CustomerRow[] }> {
  const list = await openCustomerList(chunked(bytes, options.chunkSize), options);
  const rows: CustomerRow[] = [];
  for await (const row of list.rows) rows.push(row);
  return { list, rows };
}

/** Excel's "Unicode text": UTF-16 little-endian with its BOM. */
export const utf16le = (text: string): Buffer =>
  Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
/** UTF-16 big-endian with its BOM (byte-swapped little-endian). */
export const utf16be = (text: string): Buffer => {
  const bytes = Buffer.from(text, 'utf16le').swap16();
  return Buffer.concat([Buffer.from([0xfe, 0xff]), bytes]);
};
