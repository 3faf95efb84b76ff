export type {
  CustomerList,
  CustomerListLayout,
  CustomerListOptions,
  CustomerRow,
  DocumentColumnUse,
  RowRejectionCode,
  RowStatus,
} from './customer-list.ts';
export { DEFAULT_MAX_ROWS, openCustomerList } from './customer-list.ts';
export type { CustomerListErrorCode } from './customer-list-errors.ts';
export { CustomerListError } from './customer-list-errors.ts';
export type { ColumnHolds } from './document-column.ts';
export { documentHeaderHolds, isDocumentHeader } from './document-column.ts';
export type { IntakeCounts } from './intake-tally.ts';
export { IntakeTally } from './intake-tally.ts';
export type { Delimiter } from './sniff-delimiter.ts';
export { sniffDelimiter } from './sniff-delimiter.ts';
export type { TextEncodingName } from './text-decoding.ts';
export { AutoTextDecoder } from './text-decoding.ts';
