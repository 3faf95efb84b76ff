import { maskDigits, maskDocument } from '../../domain/documents/index.ts';
import {
  CustomerListError,
  type CustomerListLayout,
  IntakeTally,
  openCustomerList,
} from '../../domain/intake/index.ts';
import type { ReportHistory } from '../../domain/ports/index.ts';
import type { Bureau } from '../../domain/report/index.ts';
import { type Quote, quoteOf } from '../../domain/spend/index.ts';
import { freshReports } from '../reuse/fresh-reports.ts';

/** Rows with a problem a check shows (the counts cover them all). */
const PROBLEMS_SHOWN = 20;

/** What a list would be, read as ingest reads it, before anything is bought: counts, problems, the quote. */
export interface ListCheck {
  readonly layout: Pick<CustomerListLayout, 'encoding' | 'delimiter' | 'hasHeader' | 'passThroughColumns'> & {
    readonly documentColumns: readonly string[];
  };
  readonly rows: number;
  readonly valid: number;
  readonly invalid: number;
  readonly duplicates: number;
  /** Unique valid documents: what a run would query, less the stored reports still fresh. */
  readonly unique: number;
  readonly byType: { readonly cpf: number; readonly cnpj: number };
  /** The first rows that will not be queried and why, their documents masked. */
  readonly problems: readonly { readonly row: number; readonly input: string; readonly reason: string }[];
  readonly quote: Quote;
}

export interface ListCheckRequest {
  readonly bureau: Bureau;
  readonly maxRows: number;
  readonly pricePerQuery: number;
  readonly ratePerSecond: number;
  /** How old a stored report may be and still be reused (0: never). */
  readonly freshnessHours: number;
  readonly nowMs: number;
}

/** Why a whole file cannot be screened (no document column, too many rows, not text), in one line. */
export class ListRefused extends Error {
  override readonly name = 'ListRefused';
}

/** A cell as a check shows it: a document masked, anything else with its digits masked and shortened. */
const shown = (input: string, document: string | null) => {
  if (document !== null) return maskDocument(document);
  const masked = maskDigits(input);
  return masked.length > 40 ? `${masked.slice(0, 40)}…` : masked;
};

/**
 * Reads a customer list as ingest would (the same reader, the same rules) and quotes it: the stored reports still
 * fresh count as reusable, as ingest reuses them. Nothing is written or bought.
 *
 * @throws ListRefused for a file ingest would refuse whole
 */
export async function checkList(
  source: AsyncIterable<Uint8Array>,
  request: ListCheckRequest,
  deps: { readonly reportHistory: Pick<ReportHistory, 'latestReports'> },
): Promise<ListCheck> {
  const tally = new IntakeTally();
  const documents: string[] = [];
  const problems: { row: number; input: string; reason: string }[] = [];
  let layout: CustomerListLayout;
  try {
    const list = await openCustomerList(source, { maxRows: request.maxRows });
    for await (const row of list.rows) {
      tally.add(row);
      if (row.status === 'valid' && row.document !== null) documents.push(row.document);
      else if (row.status === 'invalid' && problems.length < PROBLEMS_SHOWN)
        problems.push({
          row: row.row,
          input: shown(row.input, row.document),
          reason: row.reason ?? 'invalid',
        });
    }
    layout = list.layout;
  } catch (error) {
    if (error instanceof CustomerListError) throw new ListRefused(error.message);
    throw error;
  }
  const counts = tally.counts;
  const fresh =
    request.freshnessHours > 0
      ? await freshReports(deps.reportHistory, {
          bureau: request.bureau,
          documents,
          freshnessHours: request.freshnessHours,
          nowMs: request.nowMs,
        })
      : new Map();
  return {
    layout: {
      encoding: layout.encoding,
      delimiter: layout.delimiter,
      hasHeader: layout.hasHeader,
      passThroughColumns: layout.passThroughColumns,
      documentColumns: layout.documentColumns.map((column) => column.header),
    },
    rows: counts.rows,
    valid: counts.valid,
    invalid: counts.invalid,
    duplicates: counts.duplicates,
    unique: counts.unique,
    byType: counts.byType,
    problems,
    quote: quoteOf({
      bureau: request.bureau,
      unique: counts.unique,
      reusable: fresh.size,
      pricePerQuery: request.pricePerQuery,
      ratePerSecond: request.ratePerSecond,
    }),
  };
}
