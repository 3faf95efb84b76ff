/**
 * Decision benchmark: how many decisions a second the sample policies make, and the process's peak memory. The
 * inputs are built as the pipeline builds them: emulator reports (both bureaus, people and companies, the usual
 * spread of protests, debts and cheques) normalised, then `decisionInput` with a customer column
 * `requested_amount` in Brazilian format; each document is decided by the sample policy for its type. Decisions
 * run `--concurrency` at a time (the engine evaluates off the main thread), results in input order as
 * `mapInOrder` gives them. "One core": run it pinned, as the figures in bench/results/decide.md were:
 *
 *   taskset -c 0 npx tsx bench/decide.bench.ts --decisions 200000
 *   taskset -c 0 npx tsx bench/decide.bench.ts --decisions 200000 --with-trace   # as before the marks
 *
 * ZEN sizes its worker pool by the CPUs the process may use, so pinned it has one worker thread.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { generateCreditReport } from '../emulator/report-generator.ts';
import { SeededRandom } from '../emulator/seeded-random.ts';
import { loadZenCreditPolicy } from '../src/adapters/decision/zen-credit-policy.ts';
import {
  type DecisionInput,
  type DecisionValue,
  decisionInput,
  mapInOrder,
} from '../src/domain/decision/index.ts';
import type { CreditPolicy } from '../src/domain/ports/index.ts';
import { type Bureau, normaliseCreditReport } from '../src/domain/report/index.ts';
import { makeCnpj, makeCpf } from '../test/factories/documents.ts';

const { values } = parseArgs({
  options: {
    decisions: { type: 'string', default: '200000' },
    concurrency: { type: 'string', default: '64' },
    'with-trace': { type: 'boolean', default: false },
  },
});
const total = Number(values.decisions);
const concurrency = Number(values.concurrency);
const withTrace = values['with-trace'] === true;

async function policy(file: string): Promise<CreditPolicy> {
  const load = await loadZenCreditPolicy(
    file,
    readFileSync(new URL(`../samples/policies/${file}`, import.meta.url)),
    { withTrace },
  );
  if (!load.ok) throw new Error(load.error);
  return load.policy;
}
const policies = { cpf: await policy('pessoa-fisica.json'), cnpj: await policy('pessoa-juridica.json') };

const random = new SeededRandom('decide bench');
const samples: DecisionInput[] = Array.from({ length: 2000 }, (_, index) => {
  const document = index % 2 === 0 ? makeCpf(random) : makeCnpj(random);
  const bureau: Bureau = index % 4 < 2 ? 'a' : 'b';
  const report = normaliseCreditReport(generateCreditReport(document, bureau), {
    bureau,
    document,
    fetchedAt: '2026-11-21T00:00:00.000Z',
  });
  const requested =
    index % 10 === 0 ? '' : `R$ ${(1000 + ((index * 7919) % 90_000)).toLocaleString('pt-BR')},00`;
  return decisionInput(report, ['requested_amount', 'segmento'], [requested, 'varejo']);
});

async function run(count: number): Promise<Record<DecisionValue | 'POLICY_ERROR' | 'MISSING_DATA', number>> {
  const counts = { approve: 0, review: 0, decline: 0, POLICY_ERROR: 0, MISSING_DATA: 0 };
  const inputs = (function* () {
    for (let index = 0; index < count; index++) yield samples[index % samples.length] as DecisionInput;
  })();
  const decide = (input: DecisionInput) => policies[input.document_type].decide(input);
  for await (const decision of mapInOrder(inputs, decide, concurrency)) {
    counts[decision.decision] += 1;
    if (decision.reasons.some((reason) => reason.code === 'POLICY_ERROR')) counts.POLICY_ERROR += 1;
    if (decision.reasons.some((reason) => reason.code === 'MISSING_DATA')) counts.MISSING_DATA += 1;
  }
  return counts;
}

await run(5_000); // warm-up: let the JIT settle before measuring
const cpuBefore = process.cpuUsage();
const started = process.hrtime.bigint();
const counts = await run(total);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const cpu = process.cpuUsage(cpuBefore);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;

console.log(
  `decisions          ${total.toLocaleString('en')} (concurrency ${concurrency}, ${availableParallelism()} CPU(s) usable, ${withTrace ? "ZEN's trace on every decision" : 'fired rules from marks'})`,
);
console.log(`wall time          ${seconds.toFixed(2)} s`);
console.log(`decisions/s        ${Math.round(total / seconds).toLocaleString('en')}`);
console.log(
  `CPU time           ${cpuSeconds.toFixed(2)} s (${((cpuSeconds / total) * 1e6).toFixed(1)} µs per decision)`,
);
console.log(`peak RSS           ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`);
console.log(`outcomes           ${JSON.stringify(counts)}`);
