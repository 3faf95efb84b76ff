/**
 * A finalising batch of any size for the finaliser's benches, generated row by row as it is read, never held: the
 * rows are paged as DynamoDB pages them (by range too), their reports fetched per page, so what a bench measures
 * is the finaliser's own work and memory. The rows: 85 % screened, 7 % cached, 4 % duplicates of row 1, 3 %
 * invalid, 1 % failed, people (CPFs) with a requested amount; their reports are 1,000 emulator reports, cycled.
 * A re-screen of a portfolio finds, for each screened row, a previous report: another sample's, so most rows change.
 */
import { readFileSync } from 'node:fs';
import { generateCreditReport } from '../emulator/report-generator.ts';
import { SeededRandom } from '../emulator/seeded-random.ts';
import { CatalogueEventPublisher } from '../src/adapters/catalogue-event-publisher.ts';
import { zenCreditPolicyLoader } from '../src/adapters/decision/zen-credit-policy.ts';
import { MemoryObjectStore } from '../src/adapters/memory/memory-object-store.ts';
import type { FinaliseDependencies } from '../src/application/finalise/finalise-batch.ts';
import { type AlertEventType, type AlertSources, batchPolicyKey } from '../src/contract/index.ts';
import {
  type BatchRecord,
  type ReportKey,
  type RowRange,
  type RowRecord,
  reportKeyId,
  type StoredReport,
} from '../src/domain/batch/index.ts';
import { type Decision, decisionInput } from '../src/domain/decision/index.ts';
import { normaliseCreditReport } from '../src/domain/report/index.ts';
import { reportColumns } from '../src/domain/summary/index.ts';
import { batchRecord, rowRecord } from '../test/factories/batch-records.ts';
import { makeCpf } from '../test/factories/documents.ts';

/** Logs nothing: a bench's memory must not grow with what the code under it logs. */
const SILENT = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Counts each event instead of keeping it: a re-screen announces a `DocumentChanged` per changed document, which a
 * recording publisher would hold in the heap the bench measures. (Not checked against the catalogue's schemas as
 * the deployed publisher checks them: with that garbage, uncollected, the join's measured peak at 50,000 rows was
 * 30 MB above the one at 5,000.)
 */
export class CountingEventPublisher extends CatalogueEventPublisher {
  readonly counts = new Map<AlertEventType, number>();

  protected async publishEvents<Type extends AlertEventType>(
    type: Type,
    events: readonly AlertSources[Type][],
  ): Promise<void> {
    this.counts.set(type, (this.counts.get(type) ?? 0) + events.length);
  }
}

/** Rows per page, as DynamoDB's 1 MB pages hold them. */
const PAGE = 500;
const FETCHED_AT = '2026-11-20T10:00:00.000Z';
const PASS_THROUGH_COLUMNS = ['customer_id', 'requested_amount'];

/** Who decided the rows: nobody (no policy), the workers as they settled them (as deployed), or the finaliser. */
export type DecidedBy = 'none' | 'worker' | 'finaliser';

const random = new SeededRandom('finalise decisions bench');
const samples = Array.from({ length: 1000 }, () => {
  const document = makeCpf(random);
  const report = normaliseCreditReport(generateCreditReport(document, 'a'), {
    bureau: 'a',
    document,
    fetchedAt: FETCHED_AT,
  });
  return { document, report, key: { bureau: 'a', document, fetchedAt: FETCHED_AT } as ReportKey };
});
const storedByKey = new Map<string, StoredReport>(
  samples.map(({ key, report, document }) => [
    reportKeyId(key),
    { key, report, rawKey: `raw/${document}.json` },
  ]),
);

const passThroughAt = (index: number): string[] => [`C${index + 1}`, String(1_000 + (index % 50) * 1_000)];

/** What the workers decided for each sample with `policyFile` (its requested amount follows its index). */
async function workerDecisionsOf(policyFile: string): Promise<Decision[]> {
  const loaded = await zenCreditPolicyLoader.load('bench-policy.json', readFileSync(policyFile));
  if (!loaded.ok) throw new Error(loaded.error);
  const decisions: Decision[] = [];
  for (const [index, sample] of samples.entries())
    decisions.push(
      await loaded.policy.decide(decisionInput(sample.report, PASS_THROUGH_COLUMNS, passThroughAt(index))),
    );
  return decisions;
}

/** A generated finalising batch: its record, the finaliser's stores over it, and the bucket its files go to. */
export interface GeneratedBatch {
  readonly batch: BatchRecord;
  readonly objects: MemoryObjectStore;
  readonly deps: Omit<FinaliseDependencies, 'queue' | 'partRows'> & {
    readonly events: CountingEventPublisher;
  };
}

export interface GeneratedBatchOptions {
  readonly batchId: string;
  readonly rows: number;
  readonly decidedBy: DecidedBy;
  /** The policy file (JDM) of a decided batch. @default samples/policies/pessoa-fisica.json */
  readonly policyFile?: string;
  /** A re-screen of a portfolio: every screened row has a previous report to compare with. @default false */
  readonly rescreen?: boolean;
}

const PREVIOUSLY_FETCHED_AT = '2026-10-20T10:00:00.000Z';
const sampleIndexByDocument = new Map(samples.map((sample, index) => [sample.document, index]));

/** The report fetched a month before `key`'s: the next sample's, as if the person's credit had moved since. */
function previousReportOf(key: ReportKey): StoredReport {
  const index = sampleIndexByDocument.get(key.document) ?? 0;
  const earlier = samples[(index + 1) % samples.length] as (typeof samples)[number];
  return {
    key: { ...key, fetchedAt: PREVIOUSLY_FETCHED_AT },
    report: { ...earlier.report, document: key.document, fetchedAt: PREVIOUSLY_FETCHED_AT },
    rawKey: `raw/${key.document}-previous.json`,
  };
}

/** A finalising batch of `rows` generated rows (see the module's note). */
export async function generatedBatch(options: GeneratedBatchOptions): Promise<GeneratedBatch> {
  const { batchId, rows: total, decidedBy } = options;
  const policyFile = options.policyFile ?? 'samples/policies/pessoa-fisica.json';
  const workerDecisions = decidedBy === 'worker' ? await workerDecisionsOf(policyFile) : [];
  const objects = new MemoryObjectStore();
  const policy =
    decidedBy === 'none'
      ? null
      : { name: 'bench-policy.json', sha256: 'bench', key: batchPolicyKey(batchId) };
  if (policy !== null) objects.put(policy.key, readFileSync(policyFile));
  const batch = batchRecord({
    batchId,
    status: 'finalising',
    rows: total,
    toScreen: total,
    settled: total,
    policy,
    portfolio: options.rescreen ? 'bench-portfolio' : null,
    layout: {
      documentColumns: ['cpf'],
      passThroughColumns: PASS_THROUGH_COLUMNS,
      encoding: 'utf-8',
      delimiter: ',',
      hasHeader: true,
    },
  });

  /** Row `index` (0-based) of the batch. */
  function rowAt(index: number): RowRecord {
    const sample = samples[index % samples.length] as (typeof samples)[number];
    const roll = index % 100;
    const base = {
      batchId,
      row: index + 1,
      passThrough: passThroughAt(index),
      document: sample.document,
      input: sample.document,
    };
    if (roll < 92)
      return rowRecord({
        ...base,
        state: roll < 85 ? 'screened' : 'cached',
        report: reportColumns(sample.report),
        reportKey: sample.key,
        answered: roll < 85,
        decision: decidedBy === 'worker' ? workerDecisions[index % samples.length] : null,
      });
    if (roll < 96) return rowRecord({ ...base, state: 'duplicate', duplicateOf: 1 });
    if (roll < 99)
      return rowRecord({
        ...base,
        state: 'invalid_document',
        document: null,
        documentType: null,
        detail: 'x',
      });
    return rowRecord({ ...base, state: 'failed', detail: 'failed: the bureau answered 500 three times' });
  }

  const batchRows = {
    async *rows(_batchId: string, range?: RowRange) {
      const first = (range?.first ?? 1) - 1;
      const end = range?.last ?? total;
      for (let start = first; start < end; start += PAGE)
        yield Array.from({ length: Math.min(PAGE, end - start) }, (_, offset) => rowAt(start + offset));
    },
    getRows: async (_batchId: string, numbers: readonly number[]) => numbers.map((row) => rowAt(row - 1)),
  };
  const reportHistory = {
    getReports: async (keys: readonly ReportKey[]) =>
      new Map(keys.map((key) => [reportKeyId(key), storedByKey.get(reportKeyId(key)) as StoredReport])),
    previousReport: async (key: ReportKey) => (options.rescreen ? previousReportOf(key) : null),
    latestReports: async () => new Map(),
  };
  const batchRecords = {
    getBatch: async () => batch,
    claimFinalisation: async () => true,
    completeBatch: async () => true,
  };
  return {
    batch,
    objects,
    deps: {
      batchRecords: batchRecords as unknown as FinaliseDependencies['batchRecords'],
      batchRows: batchRows as unknown as FinaliseDependencies['batchRows'],
      reportHistory: reportHistory as unknown as FinaliseDependencies['reportHistory'],
      objects,
      events: new CountingEventPublisher(),
      logger: SILENT,
      policyLoader: zenCreditPolicyLoader,
    },
  };
}
