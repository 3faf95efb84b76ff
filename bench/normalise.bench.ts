/**
 * Normalisation benchmark: how many bureau responses one core turns into normalised reports per second.
 * The responses come from the emulator's generator (both bureaus, people and companies, the usual spread of
 * protests and debts), parsed from JSON text as the worker receives them. Run with `npm run bench:normalise`.
 */
import { parseArgs } from 'node:util';
import { generateCreditReport } from '../emulator/report-generator.ts';
import { SeededRandom } from '../emulator/seeded-random.ts';
import { type Bureau, normaliseCreditReport } from '../src/domain/report/index.ts';
import { makeCnpj, makeCpf } from '../test/factories/documents.ts';

const { values } = parseArgs({ options: { reports: { type: 'string', default: '100000' } } });
const total = Number(values.reports);

const random = new SeededRandom('normalise bench');
const samples = Array.from({ length: 1000 }, (_, index) => {
  const document = index % 2 === 0 ? makeCpf(random) : makeCnpj(random);
  const bureau: Bureau = index % 4 < 2 ? 'a' : 'b';
  return { document, bureau, text: JSON.stringify(generateCreditReport(document, bureau)) };
});
const averageBytes = Math.round(
  samples.reduce((sum, sample) => sum + sample.text.length, 0) / samples.length,
);

function run(count: number): number {
  let warnings = 0;
  for (let index = 0; index < count; index++) {
    const sample = samples[index % samples.length] as (typeof samples)[number];
    const report = normaliseCreditReport(JSON.parse(sample.text), {
      bureau: sample.bureau,
      document: sample.document,
      fetchedAt: '2026-11-21T00:00:00.000Z',
    });
    warnings += report.warnings.length;
  }
  return warnings;
}

run(5_000); // warm-up: let the JIT settle before measuring
const started = process.hrtime.bigint();
const warnings = run(total);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
console.log(
  JSON.stringify({
    benchmark: 'normalise: JSON.parse + normaliseCreditReport, one core',
    reports: total,
    averageResponseBytes: averageBytes,
    seconds: Number(seconds.toFixed(2)),
    reportsPerSecond: Math.round(total / seconds),
    warnings,
    target: { reportsPerSecond: 20_000 },
    node: process.version,
  }),
);
