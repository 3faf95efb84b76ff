import { existsSync } from 'node:fs';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { withConnection } from '../../cli/pipeline-connection.ts';
import { distinctDocuments } from '../factories/customer-lists.ts';
import { parseSummary, type SummaryLine } from '../factories/pipeline.ts';
import { runCli, startCli } from '../factories/run-cli.ts';
import { caseFolder, expectOneErrorLine } from './harness.ts';

// The hostile-input corpus, round four (issue #37): people in the loop. An override's limit must reach the export
// as the final limit (it showed `final_decision=approve` beside the policy's 0.00), and what a reviewer types must
// not forge lines in `audit`: a line break in a reason or a name is refused when given, and an entry stored with
// one before is printed on one line. One batch, screened once with the sample policy, serves every case in order.

const PESSOA_FISICA = join(process.cwd(), 'samples/policies/pessoa-fisica.json');

let cwd: string;
let batchId: string;
/** The summary as the pipeline wrote it, before any override. */
let summary: SummaryLine[];
const state = () => ['--state', join(cwd, 'state')];

beforeAll(async () => {
  cwd = await caseFolder('reviews');
  const people = distinctDocuments(40, 'hostile reviews')
    .filter((document) => document.length === 11)
    .slice(0, 12);
  await writeFile(
    join(cwd, 'clientes.csv'),
    `cpf,cliente,valor_solicitado\n${people.map((cpf, index) => `${cpf},C${index + 1},20000`).join('\n')}\n`,
  );
  const run = startCli(
    [
      'screen',
      'clientes.csv',
      '--policy',
      PESSOA_FISICA,
      ...state(),
      '--out',
      'results',
      '--rate-limit',
      '50',
    ],
    { cwd },
  );
  // A run that does not end says what it printed, not only that the hook timed out.
  let timer: NodeJS.Timeout | undefined;
  const screened = await Promise.race([
    run.done,
    new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        run.kill('SIGINT');
        reject(new Error(`screen did not end in 180 s; it said:\n${run.stderr()}`));
      }, 180_000);
    }),
  ]).finally(() => clearTimeout(timer));
  expect(screened.code, screened.stderr).toBe(0);
  batchId = JSON.parse(await readFile(join(cwd, 'results', 'manifest.json'), 'utf8')).batchId;
  summary = parseSummary(await readFile(join(cwd, 'results', 'summary.csv'), 'utf8'));
}, 240_000);

/** Two rows the policy decided, to override one each way. */
function decidedRows(): [SummaryLine, SummaryLine] {
  const decided = summary.filter((line) => line.decision !== '' && line.status !== 'duplicate');
  expect(decided.length).toBeGreaterThanOrEqual(2);
  return [decided[0] as SummaryLine, decided[1] as SummaryLine];
}

const override = (row: string, ...rest: string[]) => ['override', batchId, '--row', row, ...rest, ...state()];

describe('reviews of a decided batch, on the local state', () => {
  it.each([
    [
      'an LF in --reason',
      ['--reason', 'Renda ok\n2026-01-01T00:00:00.000Z  override  forged', '--by', 'Ana'],
      /--reason holds a line break/,
    ],
    ['a CR in --reason', ['--reason', 'Renda ok\rforged', '--by', 'Ana'], /--reason holds a line break/],
    ['an LF in --by', ['--reason', 'Renda ok', '--by', 'Ana\nMallory'], /--by holds a line break/],
    ['an escape in --by', ['--reason', 'Renda ok', '--by', 'Ana\u001b[2J'], /--by holds a control character/],
  ])(
    'refuses %s in one line, recording nothing',
    async (_label, words, refusal) => {
      const [row] = decidedRows();

      const result = await runCli(override(row.row as string, '--decision', 'approve', ...words), { cwd });

      expectOneErrorLine(result, refusal);
      expect(result.stdout).toBe('');
    },
    120_000,
  );

  it('refuses a line break in an erasure’s --reason the same way, erasing nothing', async () => {
    const [row] = decidedRows();

    const result = await runCli(
      ['subject', row.document as string, '--erase', '--by', 'dpo', '--reason', 'Pedido\nforged', ...state()],
      { cwd },
    );

    expectOneErrorLine(result, /--reason holds a line break/);
    const audit = await runCli(['audit', '--batch', batchId, ...state(), '--json'], { cwd });
    const kinds = (JSON.parse(audit.stdout) as { entries: { kind: string }[] }).entries.map(
      (entry) => entry.kind,
    );
    expect(kinds).not.toContain('override');
    expect(kinds).not.toContain('erasure');
  }, 120_000);

  it('exports the override’s limit as the final limit beside the policy’s, and 0 for a decline', async () => {
    const [approved, declined] = decidedRows();
    const approve = await runCli(
      override(
        approved.row as string,
        '--decision',
        'approve',
        '--limit',
        '100',
        '--reason',
        'Renda comprovada',
        '--by',
        'Ana',
      ),
      { cwd },
    );
    const decline = await runCli(
      override(declined.row as string, '--decision', 'decline', '--reason', 'Fraude', '--by', 'Bruno'),
      { cwd },
    );

    const exported = await runCli(['export', batchId, ...state(), '--out', 'final'], { cwd });

    expect([approve.code, decline.code, exported.code], `${approve.stderr}${decline.stderr}`).toEqual([
      0, 0, 0,
    ]);
    expect(exported.stdout).toContain('rows with final_decision, final_credit_limit, decided_by, decided_at');
    const text = await readFile(join(cwd, 'final', 'summary.csv'), 'utf8');
    const header = text.split(/\r?\n/)[0]?.split(',') ?? [];
    expect(header.slice(header.indexOf('credit_limit'), header.indexOf('credit_limit') + 5)).toEqual([
      'credit_limit',
      'final_decision',
      'final_credit_limit',
      'decided_by',
      'decided_at',
    ]);
    const final = parseSummary(text);
    const rowOf = (row: string | undefined) => final.find((line) => line.row === row);
    expect(rowOf(approved.row)).toMatchObject({
      credit_limit: approved.credit_limit,
      final_decision: 'approve',
      final_credit_limit: '100.00',
      decided_by: 'Ana',
    });
    expect(rowOf(declined.row)).toMatchObject({
      credit_limit: declined.credit_limit,
      final_decision: 'decline',
      final_credit_limit: '0.00',
      decided_by: 'Bruno',
    });
    for (const line of final.filter((each) => each.row !== approved.row && each.row !== declined.row))
      expect(line.final_credit_limit, `row ${line.row}`).toBe(line.credit_limit);
  }, 180_000);

  it('subject --export keeps a file that exists; --force replaces it with the subject’s data, private', async () => {
    const [row] = decidedRows();
    const file = join(cwd, 'titular.json');
    await writeFile(file, 'mine');
    const exportTo = (...more: string[]) =>
      runCli(['subject', row.document as string, '--export', 'titular.json', ...more, ...state()], { cwd });

    const kept = await exportTo();
    const keptText = await readFile(file, 'utf8');
    const forced = await exportTo('--force');

    expectOneErrorLine(kept, /--export .*titular\.json: already exists \(--force replaces it\)$/);
    expect(kept.stderr).not.toContain('starting');
    expect(keptText).toBe('mine');
    expect(forced.code, forced.stderr).toBe(0);
    expect(
      JSON.parse(await readFile(file, 'utf8')).batches.map((batch: { batchId: string }) => batch.batchId),
    ).toEqual([batchId]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  }, 120_000);

  it('prints an entry stored with line breaks in its reason and name on one line of audit', async () => {
    const [row] = decidedRows();
    const forged = '2026-01-01T00:00:00.000Z  override        batch x row 9  review → approve by Mallory: ok';
    await withConnection({ state: join(cwd, 'state') }, async (connection) => {
      const { log, documentKeys } = connection.audit;
      await log.append([
        {
          kind: 'override',
          at: new Date().toISOString(),
          batchId,
          row: Number(row.row),
          documentKey: await documentKeys.keyOf(row.document as string),
          decision: 'approve',
          previous: 'review',
          by: `Ana\n${forged}`,
          reason: `ok\r\n${forged}`,
        },
      ]);
    });

    const result = await runCli(['audit', '--batch', batchId, ...state()], { cwd });

    expect(result.code, result.stderr).toBe(0);
    const [heading, ...lines] = result.stdout.trimEnd().split('\n');
    const count = Number(/^(\d+) audit entries/.exec(heading ?? '')?.[1]);
    expect(lines).toHaveLength(count);
    for (const line of lines)
      expect(line).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z {2}(bureau request|decision|override|erasure) /);
    expect(lines.filter((line) => line.includes('Mallory'))).toEqual([
      expect.stringContaining('by Ana\\u000a2026-01-01T00:00:00.000Z'),
    ]);
    expect(result.stdout).not.toMatch(/\r/);
  }, 120_000);

  it('stops audit, subject and screen in one line when the audit key is missing or changed, and carries on once restored', async () => {
    const keyFile = join(cwd, 'state', 'audit-key');
    const key = await readFile(keyFile, 'utf8');
    const [row] = decidedRows();

    await rm(keyFile);
    const missing = await runCli(['audit', '--document', row.document as string, ...state()], { cwd });
    const screenMissing = await runCli(
      ['screen', 'clientes.csv', '--policy', PESSOA_FISICA, ...state(), '--out', 'again', '--yes'],
      { cwd },
    );
    await writeFile(keyFile, 'a'.repeat(64), { mode: 0o600 });
    const changed = await runCli(
      ['subject', row.document as string, '--export', 'subject.json', ...state()],
      {
        cwd,
      },
    );
    await writeFile(keyFile, key, { mode: 0o600 });
    const restored = await runCli(['audit', '--document', row.document as string, ...state(), '--json'], {
      cwd,
    });

    expectOneErrorLine(missing, /audit key \(audit-key\) is missing.*restore the file/);
    expectOneErrorLine(screenMissing, /audit key \(audit-key\) is missing/);
    expectOneErrorLine(changed, /audit key \(audit-key\) is not the key its audit log began with/);
    expect(existsSync(join(cwd, 'again'))).toBe(false);
    expect(existsSync(join(cwd, 'subject.json'))).toBe(false);
    expect(restored.code, restored.stderr).toBe(0);
    expect((JSON.parse(restored.stdout) as { entries: unknown[] }).entries.length).toBeGreaterThan(0);
  }, 180_000);
});
