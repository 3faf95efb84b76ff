import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { parseSummary, writeCsv } from '../factories/pipeline.ts';
import { runCli } from '../factories/run-cli.ts';

async function workspace() {
  return {
    state: await mkdtemp(join(tmpdir(), 'credit-screen-spend-state-')),
    out: await mkdtemp(join(tmpdir(), 'credit-screen-spend-out-')),
  };
}

const batchIdIn = (text: string) => /batch ([0-9a-f]{24})/.exec(text)?.[1] ?? '';

describe('spend control on the command line', () => {
  it('buys nothing over the threshold without a person or --yes, and the batch can be approved later', async () => {
    const { state, out } = await workspace();
    const file = await writeCsv('big.csv', customerListCsv(distinctDocuments(15, 'cli approval')));

    const refused = await runCli([
      'screen',
      file,
      '--state',
      state,
      '--approve-above',
      '10',
      '--price-a',
      '3',
    ]);
    const batchId = batchIdIn(refused.stderr);
    const approved = await runCli(['approve', batchId, '--state', state, '--out', out]);
    const again = await runCli(['approve', batchId, '--state', state]);
    const unknown = await runCli(['approve', 'ffffffffffffffffffffffff', '--state', state]);
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));

    // The local services says what it started, then one line says why nothing was bought and what to do.
    const reason = refused.stderr.trim().split('\n').at(-1) ?? '';
    expect(refused.code).toBe(2);
    expect(reason).toMatch(/^credit-screen: batch [0-9a-f]{24} would buy 15 documents for R\$ 45,00/);
    expect(reason).toContain(`credit-screen approve ${batchId}`);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain('15 documents to buy, sent to the workers in parts by the pipeline');
    expect(manifest).toMatchObject({ status: 'completed', counts: { screened: 15 }, quote: { to_buy: 15 } });
    // Locally `approve` follows the batch to its end: approving it again finds it completed.
    expect(again.code).toBe(2);
    expect(again.stderr.trim()).toBe(
      `credit-screen: batch ${batchId} was already approved (it is completed)`,
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
  }, 180_000);

  it('approves with --yes, and stops buying at --max-charges', async () => {
    const { state, out } = await workspace();
    const file = await writeCsv('list.csv', customerListCsv(distinctDocuments(15, 'cli cap')));

    const result = await runCli([
      'screen',
      file,
      '--state',
      state,
      '--out',
      out,
      '--approve-above',
      '10',
      '--yes',
      '--max-charges',
      '6',
    ]);
    const stats = JSON.parse(await readFile(join(out, 'emulator-stats.json'), 'utf8'));
    const summary = parseSummary(await readFile(join(out, 'summary.csv'), 'utf8'));

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/budget_exhausted/);
    expect(stats.charged).toBe(6);
    expect(summary.filter((line) => line.status === 'not_queried')).toHaveLength(9);

    const spend = await runCli(['spend', '--state', state, '--json', '--cap', '100']);
    expect(JSON.parse(spend.stdout).bureaus[0]).toMatchObject({ bureau: 'a', queries: 6, cap: 100 });
  }, 180_000);
});
