import { basename, extname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { CHANGE_KINDS, isPortfolioName } from '../../lambdas/core/monitoring/index.ts';
import { CliError } from '../cli-error.ts';
import {
  addLocalRunOptions,
  batchReport,
  checkBeforeStarting,
  failureOf,
  type LocalRunOptions,
  runLocally,
} from '../local-run.ts';
import { nonNegativeNumber } from '../option-parsers.ts';

interface RescreenOptions extends LocalRunOptions {
  readonly name?: string;
  readonly maxAgeHours?: number;
  readonly out?: string;
}

/** The portfolio name a file gives by default: its base name, with what names may not hold replaced. */
export function portfolioNameOf(file: string): string {
  return basename(file, extname(file))
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^[-_]+/, '')
    .slice(0, 48);
}

async function rescreen(file: string, options: RescreenOptions): Promise<void> {
  const name = options.name ?? portfolioNameOf(file);
  if (!isPortfolioName(name))
    throw new CliError(
      `${JSON.stringify(name)} cannot name a portfolio: use --name with letters, digits, - and _`,
    );
  await checkBeforeStarting(options, file);
  await runLocally(file, options, async (run) => {
    await run.pipeline.putPortfolio(name, resolve(file), {
      bureau: options.bureau,
      ...(options.maxAgeHours === undefined ? {} : { maxAgeHours: options.maxAgeHours }),
    });
    const outcome = await run.pipeline.runPortfolio(name);
    if (!('batchId' in outcome)) throw new CliError(`portfolio ${name}: ${outcome.reason}`);
    const done = await run.follow(outcome.batchId);
    const directory = resolve(options.out ?? join('out', outcome.batchId));
    const manifest = await run.download(outcome.batchId, directory);
    const lines = [`portfolio ${name}: re-screen`, ...batchReport(manifest, run)];
    if (manifest.changes) {
      lines.push('changes since each document’s previous report (changes.csv):');
      for (const kind of CHANGE_KINDS)
        lines.push(`  ${kind.padEnd(22)}${String(manifest.changes.counts[kind]).padStart(8)}`);
      lines.push(
        `  ${'documents changed'.padEnd(22)}${String(manifest.changes.documentsChanged).padStart(8)}`,
      );
    }
    lines.push(`results in ${directory}`);
    process.stdout.write(`${lines.join('\n')}\n`);
    const failure = failureOf(manifest, done, file);
    if (failure) throw failure;
  });
}

export function registerRescreenCommand(program: Command): void {
  addLocalRunOptions(
    program
      .command('rescreen')
      .description(
        'Re-screen a portfolio on this machine and report what changed since the last screening (state is kept in --state)',
      )
      .argument('<portfolio.csv>', 'the portfolio: a customer list')
      .option('--name <name>', 'portfolio name (default: the file name)')
      .option(
        '--max-age-hours <h>',
        'reuse reports younger than this instead of asking again (default: ask again for every document)',
        nonNegativeNumber('--max-age-hours'),
      )
      .option('--out <dir>', 'where to put the results (default out/<batchId>)'),
  ).action(async (file: string, options: RescreenOptions) => rescreen(file, options));
}
