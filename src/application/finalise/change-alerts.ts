import type { BatchRecord, RowRecord } from '../../domain/batch/index.ts';
import type { DocumentType } from '../../domain/documents/index.ts';
import type { ChangeKind, ReportChange } from '../../domain/monitoring/index.ts';
import type { DocumentChange, DocumentChangedEvent } from '../../domain/ports/index.ts';
import { compareChangeSeverity, TopList } from '../../domain/summary/index.ts';

/** What a re-screen's alerts carry, as the deployment configured them. */
export interface ChangeAlertSettings {
  /** The change kinds that make a document's `DocumentChanged`. */
  readonly changeKinds: readonly ChangeKind[];
  /** How many of the most severe changes `PortfolioChanged` lists. */
  readonly worstChanges: number;
}

/**
 * Gathers, while `changes.csv` is written, what a re-screen's alerts say: its most severe changes (constant memory,
 * however large the portfolio) and one `DocumentChanged` per document with a change of a selected kind.
 */
export class ChangeAlerts {
  readonly #batch: BatchRecord & { readonly portfolio: string };
  readonly #kinds: ReadonlySet<ChangeKind>;
  readonly #worst: TopList<DocumentChange>;
  readonly #documents: DocumentChangedEvent[] = [];
  readonly #changesKey: string;

  constructor(
    batch: BatchRecord & { readonly portfolio: string },
    settings: ChangeAlertSettings,
    changesKey: string,
  ) {
    this.#batch = batch;
    this.#kinds = new Set(settings.changeKinds);
    this.#worst = new TopList(settings.worstChanges, compareChangeSeverity);
    this.#changesKey = changesKey;
  }

  /** One screened document's changes (those of `changes.csv`, in its order). */
  add(
    row: RowRecord & { readonly document: string; readonly documentType: DocumentType },
    changes: readonly ReportChange[],
  ): void {
    if (changes.length === 0) return;
    const { documentType } = row;
    for (const change of changes)
      this.#worst.offer({ row: row.row, document: row.document, documentType, ...change });
    if (!changes.some((change) => this.#kinds.has(change.kind))) return;
    this.#documents.push({
      batchId: this.#batch.batchId,
      revision: this.#batch.revision,
      portfolio: this.#batch.portfolio,
      row: row.row,
      document: row.document,
      documentType,
      kinds: [...new Set(changes.map((change) => change.kind))],
      changes,
      keys: { changes: this.#changesKey },
    });
  }

  /** The most severe changes, the worst first. */
  get worstChanges(): readonly DocumentChange[] {
    return this.#worst.items;
  }

  /** The documents to announce one by one, in row order. */
  get documentEvents(): readonly DocumentChangedEvent[] {
    return this.#documents;
  }
}
