export { cellHoldsDocument, documentSpellings, textMentionsDocument } from './document-mentions.ts';
export { eraseCsvRecords, type OwnFileColumns } from './erase-csv-records.ts';
export { eraseJsonLines } from './erase-json-lines.ts';

/**
 * User metadata (`x-amz-meta-…`) of a customer list that an erasure rewrote: ingest never screens such an object
 * again (in AWS, rewriting it is a new upload event), since its rows were screened already as their batch.
 */
export const ERASED_METADATA = 'credit-screen-erased';
