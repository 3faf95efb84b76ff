import { type RowRecord, SETTLED_STATES, type StoredReport } from '../../domain/batch/index.ts';
import { documentSpellings } from '../../domain/data-subject/index.ts';
import type { SubjectErasureStore } from '../../domain/ports/index.ts';
import { BUREAUS } from '../../domain/report/index.ts';
import type { MemoryDecisionOverrides } from './memory-decision-overrides.ts';
import type { MemoryDocumentPurchases } from './memory-document-purchases.ts';
import type { MemoryReviewCases } from './memory-review-cases.ts';
import { type MemoryTables, toRow } from './memory-tables.ts';

/** Erasure on the in-memory stores, under the DynamoDB adapter's rules (one contract suite runs on both). */
export class MemorySubjectErasure implements SubjectErasureStore {
  constructor(
    private readonly stores: {
      readonly tables: MemoryTables;
      readonly overrides: MemoryDecisionOverrides;
      readonly purchases: MemoryDocumentPurchases;
      readonly cases?: MemoryReviewCases;
    },
  ) {}

  async rowsHolding(document: string): Promise<RowRecord[]> {
    const found: RowRecord[] = [];
    const [bare, formatted] = documentSpellings(document) as [string, string];
    const holds = (row: RowRecord) =>
      row.document === document || row.input.includes(bare) || row.input.includes(formatted);
    for (const rows of this.stores.tables.rows.values())
      for (const row of rows.values()) if (holds(row)) found.push(toRow(row));
    return found.sort((a, b) => a.batchId.localeCompare(b.batchId) || a.row - b.row);
  }

  async reportsOf(document: string): Promise<StoredReport[]> {
    return BUREAUS.flatMap((bureau) => this.stores.tables.reports.get(`${bureau}#${document}`) ?? []).map(
      (report) => structuredClone(report),
    );
  }

  async eraseRow(batchId: string, row: number, erasedAt: string): Promise<boolean> {
    const current = this.stores.tables.rows.get(batchId)?.get(row);
    if (current === undefined || !SETTLED_STATES.includes(current.state)) return false;
    this.stores.tables.putRow({
      ...current,
      document: null,
      input: '',
      passThrough: [],
      report: null,
      reportKey: null,
      decision: null,
      erasedAt,
    });
    return true;
  }

  async eraseReports(document: string): Promise<number> {
    let erased = 0;
    for (const bureau of BUREAUS) {
      const id = `${bureau}#${document}`;
      erased += this.stores.tables.reports.get(id)?.length ?? 0;
      this.stores.tables.reports.delete(id);
    }
    return erased;
  }

  async erasePurchases(document: string): Promise<number> {
    return BUREAUS.filter((bureau) => this.stores.purchases.forget(bureau, document)).length;
  }

  async eraseOverrides(batchId: string, row: number): Promise<number> {
    const erasedCase = this.stores.cases?.forgetRow(batchId, row) ?? false;
    return this.stores.overrides.forgetRow(batchId, row) + (erasedCase ? 1 : 0);
  }
}
