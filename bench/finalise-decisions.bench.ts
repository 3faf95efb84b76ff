/**
 * What deciding adds to the finaliser: the same 100,000-row batch finalised without a policy, with the sample policy
 * (`samples/policies/pessoa-fisica.json`) and rows the workers decided as they settled them (as deployed), and with
 * the policy and undecided rows (the finaliser evaluates every one: rows reused at ingest, a worker without the
 * policy), alternately, in one process. Run with `npm run bench:finalise-decisions` (`-- --rows 20000 --runs 2` for
 * a shorter run).
 *
 * The finaliser is the real `finaliseBatch` on in-memory stores (rows paged as DynamoDB pages them, reports
 * fetched per page), so what is measured is its own work: summary, reports.jsonl, statistics, report.html, and
 * the decisions. The rows: 85 % screened, 7 % cached, 4 % duplicates, 3 % invalid, 1 % failed, people (CPFs) with
 * a requested amount; their reports are 1,000 emulator reports, cycled.
 */
import { parseArgs } from 'node:util';
import { generateCreditReport } from '../emulator/report-generator.ts';
import { SeededRandom } from '../emulator/seeded-random.ts';
import { zenCreditPolicyLoader } from '../src/adapters/decision/zen-credit-policy.ts';
import { MemoryLogger } from '../src/adapters/memory/memory-logger.ts';
import { MemoryObjectStore } from '../src/adapters/memory/memory-object-store.ts';
import { RecordingEventPublisher } from '../src/adapters/memory/recording-event-publisher.ts';
import { type FinaliseDependencies, finaliseBatch } from '../src/application/finalise/finalise-batch.ts';
import { batchPolicyKey } from '../src/contract/index.ts';
import {
  type BatchRecord,
  type ReportKey,
  type RowRecord,
  reportKeyId,
  type StoredReport,
} from '../src/domain/batch/index.ts';
import { type Decision, decisionInput } from '../src/domain/decision/index.ts';
import { normaliseCreditReport } from '../src/domain/report/index.ts';
import { reportColumns } from '../src/domain/summary/index.ts';
import { batchRecord, rowRecord } from '../test/factories/batch-records.ts';
import { makeCpf } from '../test/factories/documents.ts';

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '100000' }, runs: { type: 'string', default: '3' } },
});
const total = Number(values.rows);
const runs = Number(values.runs);
const PAGE = 500;
const FETCHED_AT = '2026-11-20T10:00:00.000Z';
const random = new SeededRandom('finalise decisions bench');

const samples = Array.from({ length: 1000 }, () => {
  const document = makeCpf(random);
  const report = normaliseCreditReport(generateCreditReport(document, 'a'), {
    bureau: 'a',
    document,
    fetchedAt: FETCHED_AT,
  });
  return { document, report };
});

type Mode = 'plain' | 'worker-decided' | 'finaliser-decided';

/** What the workers decided for each sample (its requested amount is a function of its index), when they do. */
const workerDecisions: (Decision | null)[] = [];
{
  const loaded = await zenCreditPolicyLoader.load(
    'pessoa-fisica.json',
    await import('node:fs').then((fs) => fs.readFileSync('samples/policies/pessoa-fisica.json')),
  );
  if (!loaded.ok) throw new Error(loaded.error);
  for (let index = 0; index < samples.length; index++) {
    const sample = samples[index] as (typeof samples)[number];
    workerDecisions.push(
      await loaded.policy.decide(
        decisionInput(sample.report, ['customer_id', 'requested_amount'], passThroughAt(index)),
      ),
    );
  }
}

function passThroughAt(index: number): string[] {
  return [`C${index + 1}`, String(1_000 + (index % 50) * 1_000)];
}

/** Row `index` (0-based) of the batch, and the report it points at. */
function rowAt(batchId: string, index: number, mode: Mode): RowRecord {
  const sample = samples[index % samples.length] as (typeof samples)[number];
  const key: ReportKey = { bureau: 'a', document: sample.document, fetchedAt: FETCHED_AT };
  const roll = index % 100;
  const passThrough = passThroughAt(index);
  const base = { batchId, row: index + 1, passThrough, document: sample.document, input: sample.document };
  if (roll < 92)
    return rowRecord({
      ...base,
      state: roll < 85 ? 'screened' : 'cached',
      report: reportColumns(sample.report),
      reportKey: key,
      answered: roll < 85,
      decision: mode === 'worker-decided' ? workerDecisions[index % samples.length] : null,
    });
  if (roll < 96) return rowRecord({ ...base, state: 'duplicate', duplicateOf: 1 });
  if (roll < 99)
    return rowRecord({ ...base, state: 'invalid_document', document: null, documentType: null, detail: 'x' });
  return rowRecord({ ...base, state: 'failed', detail: 'failed: the bureau answered 500 three times' });
}

const storedByKey = new Map<string, StoredReport>(
  samples.map((sample) => {
    const key: ReportKey = { bureau: 'a', document: sample.document, fetchedAt: FETCHED_AT };
    return [reportKeyId(key), { key, report: sample.report, rawKey: `raw/${sample.document}.json` }];
  }),
);

function dependencies(batch: BatchRecord, objects: MemoryObjectStore, mode: Mode): FinaliseDependencies {
  const batchRecords = {
    getBatch: async () => batch,
    claimFinalisation: async () => true,
    completeBatch: async () => true,
  };
  const batchRows = {
    async *rows(batchId: string) {
      for (let start = 0; start < total; start += PAGE)
        yield Array.from({ length: Math.min(PAGE, total - start) }, (_, offset) =>
          rowAt(batchId, start + offset, mode),
        );
    },
  };
  const reportHistory = {
    getReports: async (keys: readonly ReportKey[]) =>
      new Map(keys.map((key) => [reportKeyId(key), storedByKey.get(reportKeyId(key)) as StoredReport])),
    previousReport: async () => null,
    latestReports: async () => new Map(),
  };
  return {
    batchRecords: batchRecords as unknown as FinaliseDependencies['batchRecords'],
    batchRows: batchRows as unknown as FinaliseDependencies['batchRows'],
    reportHistory: reportHistory as unknown as FinaliseDependencies['reportHistory'],
    objects,
    events: new RecordingEventPublisher(),
    logger: new MemoryLogger(),
    policyLoader: zenCreditPolicyLoader,
  };
}

async function finaliseOnce(mode: Mode, run: number): Promise<number> {
  const withPolicy = mode !== 'plain';
  const batchId = `bench-${mode}-${run}`;
  const objects = new MemoryObjectStore();
  const policy = withPolicy
    ? { name: 'pessoa-fisica.json', sha256: 'bench', key: batchPolicyKey(batchId) }
    : null;
  if (policy !== null)
    objects.put(
      policy.key,
      await import('node:fs').then((fs) => fs.readFileSync('samples/policies/pessoa-fisica.json')),
    );
  const batch = batchRecord({
    batchId,
    status: 'finalising',
    rows: total,
    toScreen: total,
    settled: total,
    policy,
    layout: {
      documentColumns: ['cpf'],
      passThroughColumns: ['customer_id', 'requested_amount'],
      encoding: 'utf-8',
      delimiter: ',',
      hasHeader: true,
    },
  });
  const started = performance.now();
  const manifest = await finaliseBatch(batchId, dependencies(batch, objects, mode));
  const elapsed = performance.now() - started;
  if (manifest === null || manifest.counts.rows !== total)
    throw new Error('the bench batch was not finalised');
  if (withPolicy && manifest.decisions === null) throw new Error('the bench batch was not decided');
  return elapsed;
}

const timings: Record<Mode, number[]> = { plain: [], 'worker-decided': [], 'finaliser-decided': [] };
await finaliseOnce('finaliser-decided', -1); // warm-up: ECharts, Intl, the engine
for (let run = 0; run < runs; run++) {
  for (const mode of Object.keys(timings) as Mode[]) timings[mode].push(await finaliseOnce(mode, run));
}
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const decidedRows = Math.round(total * 0.92);
console.log(
  `finaliser, ${total.toLocaleString('en')} rows (${decidedRows.toLocaleString('en')} decided), ${runs} runs each:`,
);
const seconds = (values: number[]) => values.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(', ');
console.log(`  without a policy:                ${seconds(timings.plain)}`);
console.log(`  rows decided by the workers:     ${seconds(timings['worker-decided'])}`);
console.log(`  rows decided by the finaliser:   ${seconds(timings['finaliser-decided'])}`);
for (const mode of ['worker-decided', 'finaliser-decided'] as const) {
  const added = median(timings[mode]) - median(timings.plain);
  console.log(
    `  ${mode}: deciding adds ${(added / 1000).toFixed(2)} s (${((added / median(timings.plain)) * 100).toFixed(1)} %), ${((added * 1000) / decidedRows).toFixed(0)} µs a decided row`,
  );
}
