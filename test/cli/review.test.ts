import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { distinctDocuments } from '../factories/customer-lists.ts';
import { parseSummary, writeCsv } from '../factories/pipeline.ts';
import { runCli } from '../factories/run-cli.ts';

const PESSOA_FISICA = join(process.cwd(), 'samples/policies/pessoa-fisica.json');

describe('credit-screen review, override and export on the local state', () => {
  it('lists the rows in review, records an override, writes the final decisions, and reads the audit log and a subject’s data', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'credit-screen-review-'));
    const state = join(cwd, 'state');
    const people = distinctDocuments(60, 'cli review')
      .filter((document) => document.length === 11)
      .slice(0, 25);
    const file = await writeCsv(
      'clientes.csv',
      `cpf,cliente,valor_solicitado\n${people.map((cpf, index) => `${cpf},C${index + 1},20000`).join('\n')}\n`,
    );
    const screened = await runCli(
      ['screen', file, '--policy', PESSOA_FISICA, '--state', state, '--out', 'results', '--rate-limit', '50'],
      { cwd },
    );
    expect(screened.code).toBe(0);
    const manifest = JSON.parse(await readFile(join(cwd, 'results', 'manifest.json'), 'utf8'));
    const batchId = manifest.batchId as string;

    const queue = await runCli(['review', batchId, '--state', state, '--json'], { cwd });
    const text = await runCli(['review', '--state', state], { cwd });

    expect(queue.code).toBe(0);
    const { items } = JSON.parse(queue.stdout) as { items: { row: number; document: string }[] };
    const inReview = parseSummary(await readFile(join(cwd, 'results', 'summary.csv'), 'utf8')).filter(
      (line) => line.decision === 'review',
    );
    expect(items.map((item) => item.row)).toEqual(inReview.map((line) => Number(line.row)));
    expect(items.length).toBeGreaterThan(0);
    expect(text.stdout).toContain(
      `${items.length} ${items.length === 1 ? 'row waits' : 'rows wait'} for a person`,
    );
    expect(text.stdout).toContain(`${batchId} row ${items[0]?.row}`);
    // Documents are masked in the queue: a CPF's middle digits never show.
    for (const line of inReview) expect(text.stdout).not.toContain(line.document);

    // The audit log has each request the emulator saw, and each decision, under keyed hashes only.
    const stats = JSON.parse(await readFile(join(cwd, 'results', 'emulator-stats.json'), 'utf8'));
    const audited = await runCli(['audit', '--batch', batchId, '--state', state, '--json'], { cwd });
    const entries = (JSON.parse(audited.stdout) as { entries: { kind: string; documentKey: string }[] })
      .entries;
    expect(entries.filter((entry) => entry.kind === 'bureau_request')).toHaveLength(stats.requests);
    expect(entries.filter((entry) => entry.kind === 'decision')).toHaveLength(25);
    for (const cpf of people) expect(audited.stdout).not.toContain(cpf);
    const ofOne = await runCli(['audit', '--document', people[0] as string, '--state', state], { cwd });
    expect(ofOne.code).toBe(0);
    expect(ofOne.stdout).toMatch(
      /^\d+ audit entries for document \*\*\*\.\d{3}\.\d{3}-\*\* in local state .*: 1 bureau request\n/,
    );
    expect(ofOne.stdout).toContain(`decision        batch ${batchId} row 1`);
    const subjectExport = await runCli(
      ['subject', people[0] as string, '--export', 'titular.json', '--state', state],
      { cwd },
    );
    expect(subjectExport.code).toBe(0);
    expect(subjectExport.stdout).toMatch(
      /titular\.json: \*\*\*\.\d{3}\.\d{3}-\*\* in 1 batch \(1 row\), 1 stored report, 1 raw answer, 2 audit entries/,
    );
    const held = JSON.parse(await readFile(join(cwd, 'titular.json'), 'utf8'));
    expect(held.batches.map((batch: { batchId: string }) => batch.batchId)).toEqual([batchId]);
    expect((await stat(join(cwd, 'titular.json'))).mode & 0o777).toBe(0o600);
    const neither = await runCli(['audit', '--state', state], { cwd });
    expect(neither.code).toBe(2);
    expect(neither.stderr.trim()).toBe(
      'credit-screen: give --document <cpf|cnpj> or --batch <id>, one of the two',
    );

    const row = String(items[0]?.row);
    const overridden = await runCli(
      [
        'override',
        batchId,
        '--row',
        row,
        '--decision',
        'approve',
        '--limit',
        '4000',
        '--reason',
        'Renda comprovada',
        '--by',
        'Ana Souza',
        '--state',
        state,
      ],
      { cwd },
    );
    const refused = await runCli(
      [
        'override',
        batchId,
        '--row',
        row,
        '--decision',
        'approve',
        '--reason',
        'Sem autor',
        '--by',
        ' ',
        '--state',
        state,
      ],
      { cwd },
    );
    const exported = await runCli(['export', batchId, '--state', state, '--out', 'final'], { cwd });
    const after = await runCli(['review', batchId, '--state', state, '--json'], { cwd });

    expect(overridden.code).toBe(0);
    expect(overridden.stdout).toMatch(
      new RegExp(`^batch ${batchId} row ${row}: review → approve, limit R\\$ 4\\.000,00, by Ana Souza at `),
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain('--by');
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain('1 decided by a person');
    const final = parseSummary(await readFile(join(cwd, 'final', 'summary.csv'), 'utf8'));
    expect(final.find((line) => line.row === row)).toMatchObject({
      decision: 'review',
      final_decision: 'approve',
      decided_by: 'Ana Souza',
    });
    expect(final.filter((line) => line.final_decision === '')).toHaveLength(0);
    // The exported folder is still a results folder that decide reads (the same policy: nothing flips).
    const redecided = await runCli(['decide', join(cwd, 'final'), '--policy', PESSOA_FISICA, '--json'], {
      cwd,
    });
    expect(redecided.code).toBe(0);
    expect(JSON.parse(redecided.stdout).flips).toEqual([]);
    expect(
      (JSON.parse(after.stdout) as { items: { row: number }[] }).items.map((item) => item.row),
    ).not.toContain(Number(row));
  }, 300_000);
});
