import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { parseSummary, writeCsv } from '../factories/pipeline.ts';
import { runCli } from '../factories/run-cli.ts';

const PESSOA_FISICA = join(process.cwd(), 'samples/policies/pessoa-fisica.json');

describe('credit-screen screen --policy', () => {
  it('decides every screened row and names the policy in the manifest', async () => {
    const out = await mkdtemp(join(tmpdir(), 'credit-screen-policy-'));
    const file = await writeCsv('list.csv', customerListCsv(distinctDocuments(20, 'cli policy')));

    const result = await runCli(['screen', file, '--policy', PESSOA_FISICA, '--no-state', '--out', out], {
      cwd: out,
    });

    expect(result.stderr).not.toContain('Error');
    expect(result.code).toBe(0);
    const summary = parseSummary(await readFile(join(out, 'summary.csv'), 'utf8'));
    expect(summary).toHaveLength(20);
    for (const line of summary) expect(['approve', 'review', 'decline']).toContain(line.decision);
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.policy.name).toBe('pessoa-fisica.json');
    expect(Object.values(manifest.decisions.counts as Record<string, number>).reduce((a, b) => a + b)).toBe(
      20,
    );
  }, 120_000);

  it.each([
    ['not JSON', '{ nodes: ', /not JSON/i],
    ['not a decision graph', '{"hello": "world"}', /./],
    ['an expression that does not compile', 'BROKEN_CELL', /does not compile|parse/i],
  ])(
    'refuses a policy that is %s in one line, before anything is bought',
    async (_, contents, said) => {
      const out = await mkdtemp(join(tmpdir(), 'credit-screen-policy-'));
      const policy = join(out, 'politica.json');
      const text =
        contents === 'BROKEN_CELL'
          ? (await readFile(PESSOA_FISICA, 'utf8')).replace('"< 300"', '"> > 5 (("')
          : contents;
      await writeFile(policy, text);
      const file = await writeCsv('list.csv', customerListCsv(distinctDocuments(3, 'cli broken policy')));

      const result = await runCli(['screen', file, '--policy', policy, '--no-state', '--out', out], {
        cwd: out,
      });

      expect(result.code).toBe(2);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('--policy');
      expect(lines[0]).toContain('politica.json');
      expect(lines[0]).toMatch(said);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      // Refused before the pipeline or the emulator started: nothing was bought, no stats were written.
      await expect(readFile(join(out, 'emulator-stats.json'), 'utf8')).rejects.toThrow();
    },
    60_000,
  );
});
