import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { customerListCsv, distinctDocuments } from '../factories/customer-lists.ts';
import { writeCsv } from '../factories/pipeline.ts';
import { runCli } from '../factories/run-cli.ts';

describe('credit-screen check: the quote', () => {
  it('quotes what the next run on the same state buys: reused reports are not bought, the rest at the price given', async () => {
    const state = await mkdtemp(join(tmpdir(), 'credit-screen-quote-state-'));
    const out = await mkdtemp(join(tmpdir(), 'credit-screen-quote-out-'));
    const known = distinctDocuments(20, 'quoted before');
    const fresh = distinctDocuments(15, 'quoted new');
    const first = await writeCsv('first.csv', customerListCsv(known));
    const second = await writeCsv(
      'second.csv',
      customerListCsv([...known.slice(0, 10), ...fresh, fresh[0] as string]),
    );
    const screen = (file: string, directory: string) =>
      runCli(['screen', file, '--state', state, '--out', directory, '--rate-limit', '200']);
    expect((await screen(first, join(out, 'first'))).code).toBe(0);

    const checked = await runCli([
      'check',
      second,
      '--state',
      state,
      '--json',
      '--price-a',
      '2,70',
      '--rate-limit',
      '5',
    ]);
    const quote = JSON.parse(checked.stdout).quote;
    const run = await screen(second, join(out, 'second'));
    const stats = JSON.parse(await readFile(join(out, 'second', 'emulator-stats.json'), 'utf8'));

    expect(checked.code).toBe(0);
    expect(quote).toEqual({
      bureau: 'a',
      unique: 25,
      reusable: 10,
      to_buy: 15,
      price_per_query: 2.7,
      estimated_cost: 40.5,
      currency: 'BRL',
      estimated_seconds: 3,
    });
    expect(run.code).toBe(0);
    expect(stats.charged).toBe(quote.to_buy);
  }, 180_000);

  it('says reuse is unknown without a state, and quotes every unique document in Brazilian reais', async () => {
    const file = await writeCsv('list.csv', customerListCsv(distinctDocuments(1234, 'quote text')));

    const result = await runCli(['check', file, '--price-a', '3.5']);

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/reusable\s+unknown/);
    expect(result.stdout).toMatch(/to buy\s+1234\s+at R\$ 3,50 per query/);
    expect(result.stdout).toMatch(/cost\s+R\$ 4\.319,00\s+at most/);
    expect(result.stdout).toMatch(/time\s+3 min\s+at 10 queries per second/);
  }, 60_000);

  it('takes the price as --price <bureau>=R$, the same as its older spelling --price-<bureau>', async () => {
    const file = await writeCsv('list.csv', customerListCsv(distinctDocuments(10, 'quote price')));

    const byBureau = await runCli(['check', file, '--bureau', 'b', '--price', 'a=9', '--price', 'b=R$ 2,70']);
    const byAlias = await runCli(['check', file, '--bureau', 'b', '--price-b', '2,70']);
    const twice = await runCli(['check', file, '--price', 'a=3', '--price-a', '4']);

    expect(byBureau.code).toBe(0);
    expect(byBureau.stdout).toMatch(/at R\$ 2,70 per query/);
    expect(byBureau.stdout).toBe(byAlias.stdout);
    expect(twice.code).toBe(2);
    expect(twice.stderr.trim()).toBe('credit-screen: bureau a is given 2 prices (3, 4): give one');
  }, 60_000);

  it.each([
    ['--price', 'z=2,70'],
    ['--price', '2,70'],
    ['--price-a', '0'],
    ['--price-a', '-2'],
    ['--price-b', '1500'],
    ['--price-a', 'dez'],
    ['--rate-limit', '0'],
  ])(
    'refuses %s %s with a line naming it',
    async (option, value) => {
      const file = await writeCsv('list.csv', customerListCsv(distinctDocuments(3, 'quote bad')));

      const result = await runCli(['check', file, option, value]);

      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(option);
      expect(result.stdout).toBe('');
    },
    60_000,
  );
});
