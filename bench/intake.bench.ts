/**
 * Intake benchmark: parse and validate a generated 1,000,000-row customer list and print rows/s and peak RSS.
 * Run with `npm run bench`. Options: `--rows N` (default 1,000,000), `--columns separate` (a CPF column and a
 * CNPJ column, one filled per row, instead of one column for both).
 */

import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SeededRandom } from '../emulator/seeded-random.ts';
import { openCustomerList } from '../src/domain/intake/index.ts';
import { makeCnpj, makeCpf, punctuate } from '../test/factories/documents.ts';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    columns: { type: 'string', default: 'one' },
    'measure-file': { type: 'string' },
  },
});
const rows = Number(values.rows);
const separateColumns = values.columns === 'separate';

async function writeList(path: string): Promise<void> {
  const random = new SeededRandom(2026);
  const out = createWriteStream(path);
  out.write(
    separateColumns ? 'customer_id;cpf;cnpj;nome;segmento\r\n' : 'customer_id;cpf_cnpj;nome;segmento\r\n',
  );
  let buffer = '';
  for (let row = 1; row <= rows; row++) {
    const isCpf = random.chance(0.7);
    const document = isCpf ? makeCpf(random) : makeCnpj(random);
    const written = random.chance(0.5) ? punctuate(document) : document;
    const cells = separateColumns ? (isCpf ? `${written};` : `;${written}`) : written;
    buffer += `C${row};${cells};Cliente ${row};${random.pick(['varejo', 'atacado', 'PME'])}\r\n`;
    if (buffer.length > 1 << 20) {
      if (!out.write(buffer)) await once(out, 'drain');
      buffer = '';
    }
  }
  out.end(buffer);
  await once(out, 'finish');
}

/** Reads the list and returns its figures; runs in a child process so generating the file does not skew RSS. */
async function measure(path: string): Promise<void> {
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 20);
  const started = process.hrtime.bigint();
  const list = await openCustomerList(createReadStream(path, { highWaterMark: 1 << 20 }));
  const counts = { valid: 0, invalid: 0, duplicate: 0 };
  for await (const row of list.rows) counts[row.status]++;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const measured = counts.valid + counts.invalid + counts.duplicate;
  process.stdout.write(
    JSON.stringify({
      rows: measured,
      seconds: Number(seconds.toFixed(2)),
      rowsPerSecond: Math.round(measured / seconds),
      peakRssMegabytes: Math.round(peakRss / 1e6),
      counts,
    }),
  );
}

if (values['measure-file']) {
  await measure(values['measure-file']);
} else {
  const directory = await mkdtemp(join(tmpdir(), 'credit-screen-bench-'));
  try {
    const path = join(directory, 'list.csv');
    await writeList(path);
    const bytes = (await stat(path)).size;
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), '--measure-file', path],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    if (child.status !== 0) throw new Error(`measurement failed with exit code ${child.status}`);
    const figures = JSON.parse(child.stdout) as Record<string, unknown>;
    console.log(
      JSON.stringify({
        benchmark: `intake: parse + validate (CSV ; CRLF, half punctuated, 70% CPF, ${
          separateColumns ? 'separate CPF and CNPJ columns' : 'one document column'
        })`,
        fileMegabytes: Number((bytes / 1e6).toFixed(1)),
        ...figures,
        targets: { rowsPerSecond: 300_000, peakRssMegabytes: 200 },
        node: process.version,
        cpus: cpus().length,
      }),
    );
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
