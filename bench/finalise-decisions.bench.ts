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
import { finaliseBatch } from '../src/application/finalise/finalise-batch.ts';
import { type DecidedBy, generatedBatch } from './generated-batch.ts';

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '100000' }, runs: { type: 'string', default: '3' } },
});
const total = Number(values.rows);
const runs = Number(values.runs);

type Mode = 'plain' | 'worker-decided' | 'finaliser-decided';
const DECIDED_BY: Record<Mode, DecidedBy> = {
  plain: 'none',
  'worker-decided': 'worker',
  'finaliser-decided': 'finaliser',
};

async function finaliseOnce(mode: Mode, run: number): Promise<number> {
  const { deps } = await generatedBatch({
    batchId: `bench-${mode}-${run}`,
    rows: total,
    decidedBy: DECIDED_BY[mode],
  });
  const started = performance.now();
  const manifest = await finaliseBatch(`bench-${mode}-${run}`, {
    ...deps,
    // One part: what is measured is the work per row, not the split (bench/scale.bench.ts measures that).
    partRows: total,
    queue: {
      sendFinalise: async () => {
        throw new Error('the bench batch is written at once');
      },
    },
  });
  const elapsed = performance.now() - started;
  if (manifest === null || manifest.counts.rows !== total)
    throw new Error('the bench batch was not finalised');
  if (mode !== 'plain' && manifest.decisions === null) throw new Error('the bench batch was not decided');
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
