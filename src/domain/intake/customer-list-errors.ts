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

/**
 * A file-level problem with a message meant for the person who uploaded the file: what is wrong, then, when there
 * is one, what to do about it (`fix the quoting and upload the file again`).
 */
export class CustomerListError extends Error {
  override readonly name = 'CustomerListError';
  /**
   * What is wrong, without the advice to the uploader: for a reader of a CSV file nobody uploads (a batch's
   * `summary.csv`), where the advice would be wrong.
   */
  readonly problem: string;
  constructor(
    readonly code: CustomerListErrorCode,
    problem: string,
    advice?: string,
  ) {
    super(advice === undefined ? problem : `${problem}: ${advice}`);
    this.problem = problem;
  }
}
