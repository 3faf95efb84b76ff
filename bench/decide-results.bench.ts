/**
 * `credit-screen decide` benchmark: re-decides a generated results folder (summary.csv + reports.jsonl +
 * manifest.json, 1,000,000 rows by default) with a stricter policy, as a user runs it, and reports decisions per
 * second and the command's peak RSS. Run with `npm run bench:decide` (add `-- --rows 100000` for a shorter run;
 * `--keep` leaves the folder in the temporary directory).
 *
 * The folder is what the finaliser writes for a batch of people (bureau A) decided by the sample policy
 * `samples/policies/pessoa-fisica.json`: 85 % screened, 7 % cached, 4 % duplicates, 3 % invalid documents, 1 %
 * failed; every row a distinct CPF; its report one of 2,000 emulator reports (normalised, about 2.3 KB a line, as
 * real ones), with the decision the sample policy gave it; customer columns `customer_id`, `name` (written
 * `input_name`, as the summary does), `requested_amount` in Brazilian format and `segmento`.
 *
 * Measured, each in a process of its own on the machine's cores (`--cores <n>` pins it to the first n with
 * `taskset`; ZEN runs in one child process per core the process may use):
 * - `decide`: the real command line (`bin/credit-screen.mjs decide <folder> --policy <stricter> --json`) under
 *   `/usr/bin/time -v`, for its wall time and CPU time (its ZEN processes included), start-up included; its peak
 *   memory is the largest sum of the RSS of the command and its ZEN processes, sampled every 100 ms from `/proc`;
 * - `reading and writing only`: the same streams, pairing, inputs and decisions.csv with a policy that answers at
 *   once, to tell what the engine costs from what the command around it costs.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { withResultFiles } from '../cli/decide/result-files.ts';
import { generateCreditReport } from '../emulator/report-generator.ts';
import { SeededRandom } from '../emulator/seeded-random.ts';
import { loadZenCreditPolicy } from '../src/adapters/decision/zen-credit-policy.ts';
import { redecide } from '../src/application/redecide/redecide.ts';
import { type BatchManifest, resultKeys } from '../src/contract/index.ts';
import { type Decision, decisionInput } from '../src/domain/decision/index.ts';
import type { CreditPolicy } from '../src/domain/ports/index.ts';
import { normaliseCreditReport } from '../src/domain/report/index.ts';
import {
  emptyStatusCounts,
  reportColumns,
  SummaryCsvWriter,
  type SummaryRow,
  type SummaryStatus,
} from '../src/domain/summary/index.ts';
import { makeCpf } from '../test/factories/documents.ts';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    keep: { type: 'boolean', default: false },
    cores: { type: 'string' },
    // Internal: the child process that measures reading and writing alone.
    'stub-child': { type: 'string' },
  },
});

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SAMPLE_POLICY = join(ROOT, 'samples/policies/pessoa-fisica.json');
const CUSTOMER_COLUMNS = ['customer_id', 'name', 'requested_amount', 'segmento'];
const SAMPLES = 2000;

/** The sample policy with stricter score bands: decline below 400, review to 599, approve (C) from 600. */
async function stricterPolicy(path: string): Promise<void> {
  const graph = JSON.parse(await readFile(SAMPLE_POLICY, 'utf8'));
  for (const node of graph.nodes) {
    for (const rule of node.content?.rules ?? []) {
      if (rule._id === 'pf-score-e') rule.score = '< 400';
      if (rule._id === 'pf-score-d') rule.score = '[400..600)';
      if (rule._id === 'pf-score-c') rule.score = '[600..700)';
    }
  }
  await writeFile(path, JSON.stringify(graph));
}

async function load(path: string, bytes: Uint8Array): Promise<CreditPolicy> {
  const loaded = await loadZenCreditPolicy(path, bytes);
  if (!loaded.ok) throw new Error(loaded.error);
  return loaded.policy;
}

interface Sample {
  readonly document: string;
  /** The reports.jsonl line, its document to be replaced by each row's own. */
  readonly line: string;
  readonly columns: ReturnType<typeof reportColumns>;
  readonly decision: Decision;
  readonly requested: string;
}

async function samples(random: SeededRandom): Promise<Sample[]> {
  const policy = await load(SAMPLE_POLICY, await readFile(SAMPLE_POLICY));
  return Promise.all(
    Array.from({ length: SAMPLES }, async (_, index) => {
      const document = makeCpf(random);
      const report = normaliseCreditReport(generateCreditReport(document, 'a'), {
        bureau: 'a',
        document,
        fetchedAt: '2026-11-21T00:00:00.000Z',
      });
      const requested =
        index % 10 === 0 ? '' : `R$ ${(1000 + ((index * 7919) % 90_000)).toLocaleString('pt-BR')},00`;
      const cells = ['CLI-0', 'Cliente', requested, 'varejo'];
      const decision = await policy.decide(decisionInput(report, CUSTOMER_COLUMNS, cells));
      return {
        document,
        line: JSON.stringify({ ...report, decision }),
        columns: reportColumns(report),
        decision,
        requested,
      };
    }),
  );
}

function statusOf(index: number): SummaryStatus {
  const roll = index % 100;
  if (roll < 85) return 'screened';
  if (roll < 92) return 'cached';
  if (roll < 96) return 'duplicate';
  return roll < 99 ? 'invalid_document' : 'failed';
}

/** Writes a text stream's pieces with back-pressure. */
function fileWriter(path: string) {
  const stream = createWriteStream(path, { mode: 0o600 });
  let pending = '';
  return {
    async write(text: string) {
      pending += text;
      if (pending.length < 1 << 20) return;
      const chunk = pending;
      pending = '';
      if (!stream.write(chunk)) await once(stream, 'drain');
    },
    async close() {
      stream.end(pending);
      await once(stream, 'close');
    },
  };
}

/** A row with a report: what the duplicates after it repeat. */
interface Original {
  readonly row: number;
  readonly document: string;
  readonly sample: Sample;
}

const DETAILS: Partial<Record<SummaryStatus, string>> = {
  invalid_document: 'wrong length: 9 digits (a CPF has 11, a CNPJ 14)',
  failed: 'bureau unavailable after 5 attempts: timeout',
};

/** One row of the folder: its summary line, and its reports.jsonl line when it has a report of its own. */
function rowOf(index: number, pool: readonly Sample[], random: SeededRandom, last: Original | null) {
  const row = index + 1;
  const drawn = statusOf(index);
  const status: SummaryStatus = drawn === 'duplicate' && last === null ? 'screened' : drawn;
  const duplicate = status === 'duplicate' ? (last as Original) : null;
  const sample = duplicate?.sample ?? (pool[index % SAMPLES] as Sample);
  const hasReport = status === 'screened' || status === 'cached' || status === 'duplicate';
  const document =
    duplicate?.document ?? (status === 'invalid_document' ? random.digits(9) : makeCpf(random));
  const own = status === 'screened' || status === 'cached';
  const summary: SummaryRow = {
    row,
    document,
    documentType: status === 'invalid_document' ? null : 'cpf',
    bureau: 'a',
    status,
    statusDetail: duplicate ? `row ${duplicate.row}` : (DETAILS[status] ?? ''),
    chargeState: status === 'screened' ? 'charged' : 'not_charged',
    report: hasReport ? sample.columns : null,
    decision: hasReport ? sample.decision : null,
    passThrough: [`CLI-${String(row).padStart(7, '0')}`, `Cliente ${row}`, sample.requested, 'varejo'],
  };
  return {
    summary,
    report: own ? `${sample.line.replace(sample.document, document)}\n` : null,
    original: own ? { row, document, sample } : last,
  };
}

/** Generates the results folder; returns its row counts. */
async function generate(directory: string, total: number): Promise<Record<SummaryStatus, number>> {
  const random = new SeededRandom('decide results bench');
  const pool = await samples(random);
  const writer = new SummaryCsvWriter('standard', CUSTOMER_COLUMNS, true);
  const summary = fileWriter(join(directory, 'summary.csv'));
  const reports = fileWriter(join(directory, 'reports.jsonl'));
  await summary.write(writer.header());
  const counts = emptyStatusCounts();
  let original: Original | null = null;
  for (let index = 0; index < total; index++) {
    const next = rowOf(index, pool, random, original);
    original = next.original;
    counts[next.summary.status]++;
    if (next.report !== null) await reports.write(next.report);
    await summary.write(writer.row(next.summary));
  }
  await summary.close();
  await reports.close();
  return counts;
}

async function writeManifest(directory: string, total: number, counts: Record<SummaryStatus, number>) {
  const batchId = 'bench0000000000000000000';
  const keys = resultKeys(batchId);
  const manifest: BatchManifest = {
    manifestVersion: 1,
    batchId,
    status: 'completed',
    revision: 1,
    bureau: 'a',
    source: { bucket: 'bench', key: 'incoming/a/clientes.csv', sha256: null },
    createdAt: '2026-11-21T00:00:00.000Z',
    completedAt: '2026-11-21T01:00:00.000Z',
    quote: null,
    counts: { rows: total, ...counts },
    charges: { charged: counts.screened, not_charged: total - counts.screened, charge_unknown: 0 },
    files: { summary: keys.summary, reports: keys.reports, report: keys.report },
    portfolio: null,
    changes: null,
    policy: {
      name: 'pessoa-fisica.json',
      sha256: (await load(SAMPLE_POLICY, await readFile(SAMPLE_POLICY))).sha256,
    },
    decisions: null,
    dialect: 'standard',
    failure: null,
  };
  await writeFile(join(directory, 'manifest.json'), JSON.stringify(manifest));
}

/** The child that reads and writes as `decide` does, with a policy that answers at once. */
async function stubChild(directory: string): Promise<void> {
  const answer: Decision = {
    decision: 'approve',
    reasons: [],
    risk_band: null,
    credit_limit: null,
    detail: null,
    trace: [],
  };
  const policy: CreditPolicy = {
    name: 'stub',
    sha256: '',
    customerColumnsRead: [],
    decide: async () => answer,
  };
  const out = fileWriter(join(directory, 'decisions-stub.csv'));
  const started = process.hrtime.bigint();
  const outcome = await withResultFiles(directory, { state: '.credit-screen' }, (files) =>
    redecide(files, policy, out),
  );
  await out.close();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const usage = process.resourceUsage();
  process.stdout.write(
    JSON.stringify({
      seconds,
      decided: outcome.decided,
      cpu: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
      maxRssMb: usage.maxRSS / 1024,
    }),
  );
}

/** The RSS of a process and its descendants, from /proc, in MB (0 once it is gone). */
async function treeRssMb(pid: number): Promise<number> {
  let total = 0;
  const visit = async (id: number): Promise<void> => {
    try {
      const status = await readFile(`/proc/${id}/status`, 'utf8');
      total += Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024;
      const children = await readFile(`/proc/${id}/task/${id}/children`, 'utf8');
      for (const child of children.split(' ').filter(Boolean)) await visit(Number(child));
    } catch {
      // Gone between two reads.
    }
  };
  await visit(pid);
  return total;
}

/** A command under `/usr/bin/time -v`, with the largest RSS its process tree reached, sampled every 100 ms. */
async function measuredTree(args: string[]) {
  const child = spawn('/usr/bin/time', ['-v', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  let peakTreeRssMb = 0;
  const sampler = setInterval(() => {
    void treeRssMb(child.pid as number).then((mb) => {
      peakTreeRssMb = Math.max(peakTreeRssMb, mb);
    });
  }, 100);
  const [status] = (await once(child, 'close')) as [number | null];
  clearInterval(sampler);
  return { status, stdout, stderr, peakTreeRssMb };
}

/** `/usr/bin/time -v`'s figures of a finished command. */
function timeFigures(stderr: string) {
  const field = (name: string) => stderr.match(new RegExp(`${name}: (.+)`))?.[1]?.trim() ?? '';
  const [minutes, seconds] = field('Elapsed \\(wall clock\\) time \\(h:mm:ss or m:ss\\)')
    .split(':')
    .slice(-2);
  return {
    wall: Number(minutes) * 60 + Number(seconds),
    cpu: Number(field('User time \\(seconds\\)')) + Number(field('System time \\(seconds\\)')),
    maxRssMb: Number(field('Maximum resident set size \\(kbytes\\)')) / 1024,
  };
}

async function main(): Promise<void> {
  if (values['stub-child'] !== undefined) return stubChild(values['stub-child']);
  const total = Number(values.rows);
  const directory = await mkdtemp(join(tmpdir(), 'credit-screen-decide-bench-'));
  const stricter = join(directory, 'mais-restritiva.json');
  await stricterPolicy(stricter);
  const generating = process.hrtime.bigint();
  const counts = await generate(directory, total);
  await writeManifest(directory, total, counts);
  const size = (name: string) =>
    Number(execFileSync('stat', ['-c', '%s', join(directory, name)], { encoding: 'utf8' }));
  console.log(
    `results folder     ${total.toLocaleString('en')} rows, summary.csv ${(size('summary.csv') / 2 ** 20).toFixed(0)} MiB, reports.jsonl ${(size('reports.jsonl') / 2 ** 30).toFixed(2)} GiB (generated in ${(Number(process.hrtime.bigint() - generating) / 1e9).toFixed(0)} s)`,
  );

  const cores = values.cores === undefined ? availableParallelism() : Number(values.cores);
  const pinned = (args: string[]) =>
    spawnSync('/usr/bin/time', ['-v', 'taskset', '-c', `0-${cores - 1}`, process.execPath, ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
  const stub = pinned(['--import', 'tsx', fileURLToPath(import.meta.url), '--stub-child', directory]);
  if (stub.status !== 0) throw new Error(`the stub run failed: ${stub.stderr}`);
  const alone = JSON.parse(stub.stdout) as {
    seconds: number;
    decided: number;
    cpu: number;
    maxRssMb: number;
  };
  console.log(
    `reading+writing    ${alone.seconds.toFixed(1)} s for ${alone.decided.toLocaleString('en')} rows decided: ${Math.round(alone.decided / alone.seconds).toLocaleString('en')} rows/s, ${((alone.cpu / alone.decided) * 1e6).toFixed(1)} µs CPU a row, peak RSS ${alone.maxRssMb.toFixed(0)} MB`,
  );

  const run = await measuredTree([
    'taskset',
    '-c',
    `0-${cores - 1}`,
    process.execPath,
    'bin/credit-screen.mjs',
    'decide',
    directory,
    '--policy',
    stricter,
    '--json',
  ]);
  if (run.status !== 0) throw new Error(`decide failed: ${run.stderr}`);
  const { counts: decisions, flips } = JSON.parse(run.stdout) as {
    counts: Record<string, number>;
    flips: { from: string; to: string; rows: number }[];
  };
  const decided = Object.values(decisions).reduce((sum, count) => sum + count, 0);
  const figures = timeFigures(run.stderr);
  console.log(
    `decide             ${figures.wall.toFixed(1)} s wall on ${cores} cores for ${decided.toLocaleString('en')} decisions: ${Math.round(decided / figures.wall).toLocaleString('en')} decisions/s, ${((figures.cpu / decided) * 1e6).toFixed(1)} µs CPU a decision, peak RSS ${run.peakTreeRssMb.toFixed(0)} MB (the command and its ZEN processes together; the command alone ${figures.maxRssMb.toFixed(0)} MB at most)`,
  );
  console.log(`decisions          ${JSON.stringify(decisions)}`);
  console.log(`flips              ${flips.map((flip) => `${flip.from}→${flip.to} ${flip.rows}`).join(', ')}`);
  if (values.keep) console.log(`kept               ${directory}`);
  else if (existsSync(directory)) await rm(directory, { recursive: true, force: true });
}

await main();
