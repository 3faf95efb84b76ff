/** Why a whole customer list is unusable (as opposed to one bad row, which gets a per-row reason). */
export type CustomerListErrorCode =
  | 'ambiguous_document_column'
  | 'empty_file'
  | 'no_document_column'
  | 'row_limit_exceeded'
  | 'row_too_long'
  | 'unbalanced_quote'
  | 'unsupported_encoding'
  | 'not_a_text_file';

/** A file-level problem with a message meant for the person who uploaded the file. */
export class CustomerListError extends Error {
  override readonly name = 'CustomerListError';
  constructor(
    readonly code: CustomerListErrorCode,
    message: string,
  ) {
    super(message);
  }
}
