/**
 * The customer's file name, carried beside an upload: the upload key is opaque on purpose (`uploadKey`), so the
 * name travels as S3 metadata, ingest keeps it on the batch, and the manifest and report.html show it. A name can
 * hold a document (`529.982.247-25.csv`) or characters a terminal acts on: what is kept is masked and cleaned.
 */

import { maskPersonalDataInText } from '../domain/documents/index.ts';

/** S3 metadata of an upload (`x-amz-meta-source-name`): the file's name, percent-encoded (metadata is ASCII). */
const SOURCE_NAME_METADATA = 'source-name';

/** Names longer than this are cut: a title, not a path. */
const MAX_SOURCE_NAME_LENGTH = 120;

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/**
 * A file name as the pipeline may keep it: its last path part, without control or direction characters, at most
 * {@link MAX_SOURCE_NAME_LENGTH} characters, with every document in it masked (`***.982.247-**.csv`) and, when
 * eleven digits or more remain once separators are dropped (`529 982 247 25.csv`), every digit masked. Null for a
 * name with nothing left.
 */
function keptSourceName(fileName: string): string | null {
  const last = fileName.split(/[/\\]/).pop() ?? '';
  const cleaned = last.replace(UNPRINTABLE, ' ').replace(/\s+/g, ' ').trim().slice(0, MAX_SOURCE_NAME_LENGTH);
  let masked = maskPersonalDataInText(cleaned);
  if (/\d{11}/.test(masked.replace(/[\s._/-]/g, ''))) masked = masked.replace(/\d/g, '*');
  return masked === '' ? null : masked;
}

/** The metadata an upload of `fileName` carries: its kept name, percent-encoded; none for a name with nothing kept. */
export function sourceNameMetadata(fileName: string): Readonly<Record<string, string>> {
  const name = keptSourceName(fileName);
  return name === null ? {} : { [SOURCE_NAME_METADATA]: encodeURIComponent(name) };
}

/**
 * The name an upload's metadata carries, kept as {@link keptSourceName} keeps it (whoever uploaded it may have put
 * anything there), or null when it carries none or one that cannot be read.
 */
export function sourceNameOf(metadata: Readonly<Record<string, string>>): string | null {
  const value = metadata[SOURCE_NAME_METADATA];
  if (value === undefined) return null;
  try {
    return keptSourceName(decodeURIComponent(value));
  } catch {
    return null;
  }
}
