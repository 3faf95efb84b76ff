import { type ReportKey, reportKeyId, type StoredReport } from '../../domain/batch/index.ts';
import type { ReportHistory } from '../../domain/ports/index.ts';
import type { Bureau } from '../../domain/report/index.ts';

import type { MemoryTables } from './memory-tables.ts';

/** Stored reports in memory. */
export class MemoryReportHistory implements ReportHistory {
  readonly #db: MemoryTables;

  constructor(tables: MemoryTables) {
    this.#db = tables;
  }

  async latestReports(bureau: Bureau, documents: readonly string[]): Promise<Map<string, StoredReport>> {
    const found = new Map<string, StoredReport>();
    for (const document of new Set(documents)) {
      const newest = this.#db.reports.get(`${bureau}#${document}`)?.at(-1);
      if (newest) found.set(document, structuredClone(newest));
    }
    return found;
  }

  async getReports(keys: readonly ReportKey[]): Promise<Map<string, StoredReport>> {
    const found = new Map<string, StoredReport>();
    for (const key of keys) {
      const stored = this.#db.reports
        .get(`${key.bureau}#${key.document}`)
        ?.find((report) => report.key.fetchedAt === key.fetchedAt);
      if (stored) found.set(reportKeyId(key), structuredClone(stored));
    }
    return found;
  }

  async previousReport(key: ReportKey): Promise<StoredReport | null> {
    const earlier = (this.#db.reports.get(`${key.bureau}#${key.document}`) ?? []).filter(
      (report) => report.key.fetchedAt < key.fetchedAt,
    );
    const previous = earlier.at(-1);
    return previous ? structuredClone(previous) : null;
  }
}
