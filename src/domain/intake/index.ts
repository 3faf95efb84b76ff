export type {
  CustomerList,
  CustomerListLayout,
  CustomerListOptions,
  CustomerRow,
  DocumentColumnUse,
} from './customer-list.ts';
export { DEFAULT_MAX_ROWS, openCustomerList } from './customer-list.ts';

export { CustomerListError } from './customer-list-errors.ts';

export { type IntakeCounts, IntakeTally } from './intake-tally.ts';

export { sniffDelimiter } from './sniff-delimiter.ts';

export { AutoTextDecoder } from './text-decoding.ts';
