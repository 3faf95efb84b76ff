import { resultKeys, S3_LAYOUT } from '../../contract/index.ts';
import { isReportLanguage } from '../../domain/batch-report/report-language.ts';
import {
  ERASED_METADATA,
  eraseCsvRecords,
  eraseJsonLines,
  type OwnFileColumns,
  textMentionsDocument,
} from '../../domain/data-subject/index.ts';
import { AutoTextDecoder } from '../../domain/intake/index.ts';
import type { ObjectStore } from '../../domain/ports/index.ts';
import { type ReportManifest, renderReportFromResults } from '../batch-report/index.ts';

/** The bucket as an erasure uses it. */
export type ErasableObjects = Pick<ObjectStore, 'list' | 'read' | 'rewrite' | 'remove'>;

/** What an erasure changed in the bucket, by key. */
export interface ObjectChanges {
  /** Objects rewritten without the document (customer lists, results files). */
  readonly rewritten: string[];
  /** Objects removed with every version (raw answers, files that only held it). */
  readonly removed: string[];
}

/** A summary record keeps what the batch's counts and charges rest on; every other cell is emptied. */
const summaryColumns = (erasedAt: string): OwnFileColumns => ({
  keep: ['row', 'document_type', 'bureau', 'status', 'charge_state'],
  note: { column: 'status_detail', text: `personal data erased on request at ${erasedAt}` },
});

async function bytesOf(objects: ErasableObjects, key: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of objects.read(key)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The object as text in whichever encoding it is in; bytes that are no text at all are read one byte a character. */
function textOf(bytes: Uint8Array): string {
  try {
    const decoder = new AutoTextDecoder();
    return decoder.write(bytes) + decoder.end();
  } catch {
    return Buffer.from(bytes).toString('latin1');
  }
}

/**
 * Takes one document out of the pipeline's bucket: customer lists and results files are rewritten without its
 * records, the batch's page is drawn again from them, and any other object that names it (a raw answer, a work file,
 * a list that cannot be read as CSV) is removed. Every change is recorded in `changes`.
 */
export class SubjectObjects {
  readonly changes: ObjectChanges = { rewritten: [], removed: [] };

  constructor(
    private readonly objects: ErasableObjects,
    private readonly document: string,
    private readonly erasedAt: string,
  ) {}

  /**
   * A customer list (`incoming/`, `portfolios/`): its records of the document emptied in place, the rest byte for
   * byte as uploaded. The rewrite is marked, so ingest never takes it for a new upload.
   */
  async eraseFromList(key: string): Promise<void> {
    const bytes = await bytesOf(this.objects, key);
    let erased: ReturnType<typeof eraseCsvRecords>;
    try {
      erased = eraseCsvRecords(bytes, this.document);
    } catch {
      // Not a list it can rewrite (a PDF uploaded by mistake, an encoding it does not read): removed if it names it.
      await this.#removeIfMentioned(key, bytes);
      return;
    }
    if (erased === null) return await this.#removeIfMentioned(key, bytes);
    await this.objects.rewrite(key, erased.bytes, { [ERASED_METADATA]: this.erasedAt });
    this.changes.rewritten.push(key);
  }

  /** Every customer list under a prefix. */
  async eraseFromLists(prefix: string): Promise<void> {
    for await (const key of this.objects.list(prefix)) await this.eraseFromList(key);
  }

  /**
   * A batch's results: `summary.csv` keeps the row's number and status, `changes.csv` and `reports.jsonl` lose its
   * lines, `report.html` is drawn again from what remains, and whatever else names the document is removed.
   */
  async eraseFromResults(batchId: string): Promise<void> {
    const keys = resultKeys(batchId);
    const present = new Set<string>();
    for await (const key of this.objects.list(`${S3_LAYOUT.results}${batchId}/`)) present.add(key);
    const texts = new Map<string, string>();
    let changed = false;
    for (const key of present) {
      const bytes = await bytesOf(this.objects, key);
      let rewritten: Uint8Array | null = null;
      if (key === keys.summary)
        rewritten = eraseCsvRecords(bytes, this.document, summaryColumns(this.erasedAt))?.bytes ?? null;
      else if (key === keys.changes) rewritten = eraseCsvRecords(bytes, this.document, 'drop')?.bytes ?? null;
      // Any other table of the batch (`decisions.csv` of `credit-screen decide`) is about its rows' subjects.
      else if (key.endsWith('.csv')) rewritten = eraseCsvRecords(bytes, this.document, 'drop')?.bytes ?? null;
      else if (key === keys.reports || key === keys.review) {
        const erased = eraseJsonLines(textOf(bytes), this.document);
        rewritten = erased === null ? null : Buffer.from(erased.text, 'utf8');
      }
      if (rewritten !== null) {
        await this.objects.rewrite(key, rewritten);
        this.changes.rewritten.push(key);
        changed = true;
      }
      texts.set(key, textOf(rewritten ?? bytes));
    }
    const page = texts.get(keys.report);
    if (page !== undefined && (changed || textMentionsDocument(page, this.document))) {
      const redrawn = await this.#redrawReport(page, texts, keys);
      if (redrawn !== null && !textMentionsDocument(redrawn, this.document)) {
        await this.objects.rewrite(keys.report, Buffer.from(redrawn, 'utf8'));
        this.changes.rewritten.push(keys.report);
        texts.set(keys.report, redrawn);
      }
    }
    for (const [key, text] of texts) if (textMentionsDocument(text, this.document)) await this.#remove(key);
  }

  /** Objects under a prefix (a batch's `work/` files) that name the document are removed. */
  async removeMentionsUnder(prefix: string): Promise<void> {
    for await (const key of this.objects.list(prefix))
      await this.#removeIfMentioned(key, await bytesOf(this.objects, key));
  }

  /** Raw answers: removed whole (they are the bureau's answer about the document and nothing else). */
  async removeAll(keys: Iterable<string>): Promise<void> {
    for (const key of keys) await this.#remove(key);
  }

  async #removeIfMentioned(key: string, bytes: Uint8Array): Promise<void> {
    if (textMentionsDocument(textOf(bytes), this.document)) await this.#remove(key);
  }

  async #remove(key: string): Promise<void> {
    await this.objects.remove(key);
    if (!this.changes.removed.includes(key)) this.changes.removed.push(key);
    const rewritten = this.changes.rewritten.indexOf(key);
    if (rewritten !== -1) this.changes.rewritten.splice(rewritten, 1);
  }

  /** The batch's page drawn again from its rewritten results, in the page's own language; null when it cannot be. */
  async #redrawReport(
    page: string,
    texts: ReadonlyMap<string, string>,
    keys: ReturnType<typeof resultKeys>,
  ): Promise<string | null> {
    const language = /<html lang="([^"]+)"/.exec(page)?.[1];
    const manifestText = texts.get(keys.manifest);
    if (manifestText === undefined || !isReportLanguage(language)) return null;
    try {
      const manifest = JSON.parse(manifestText) as ReportManifest;
      return await renderReportFromResults(
        { manifest, summary: texts.get(keys.summary) ?? null, changes: texts.get(keys.changes) ?? null },
        { language },
      );
    } catch {
      // A page that cannot be drawn again is removed when it names the document (`credit-screen report` redraws it).
      return null;
    }
  }
}
