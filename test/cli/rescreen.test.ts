import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { portfolioNameOf } from '../../cli/commands/rescreen.ts';
import { distinctDocuments } from '../factories/customer-lists.ts';
import { parseSummary } from '../factories/pipeline.ts';
import { runCli } from '../factories/run-cli.ts';

describe('credit-screen rescreen', () => {
  it('re-screens a portfolio across runs and epochs, printing the change counts and writing changes.csv', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'credit-screen-rescreen-'));
    const file = join(directory, 'Carteira Ativa.csv');
    await writeFile(file, `documento\n${distinctDocuments(120, 'rescreen-cli').join('\n')}\n`);

    const first = await runCli(['rescreen', file, '--epoch', '0', '--out', join(directory, 'first')], {
      cwd: directory,
    });
    const second = await runCli(['rescreen', file, '--epoch', '1', '--out', join(directory, 'second')], {
      cwd: directory,
    });

    expect(first.code).toBe(0);
    expect(first.stdout).toContain('portfolio Carteira-Ativa: re-screen');
    expect(first.stdout).toMatch(/first_screening\s+120/);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/first_screening\s+0/);
    const changes = parseSummary(await readFile(join(directory, 'second', 'changes.csv'), 'utf8'));
    const changed = Number(/documents changed\s+(\d+)/.exec(second.stdout)?.[1]);
    expect(changed).toBeGreaterThan(10);
    expect(new Set(changes.map((line) => line.document)).size).toBe(changed);
    // The state lives in the working directory, as the default says.
    expect(await readdir(join(directory, '.credit-screen'))).toEqual(
      expect.arrayContaining(['dynamodb', 's3']),
    );
  }, 180_000);

  it('names a portfolio after its file, keeping only what names may hold', () => {
    expect(portfolioNameOf('/x/Carteira Ativa (2026).csv')).toBe('Carteira-Ativa-2026-');
    expect(portfolioNameOf('clientes_PJ.csv')).toBe('clientes_PJ');
    expect(portfolioNameOf('São João.csv')).toBe('Sao-Joao');
  });
});
