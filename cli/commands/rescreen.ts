import { basename, extname, resolve } from 'node:path';
import type { Command } from 'commander';
import type { BatchManifest } from '../../src/contract/index.ts';
import { CHANGE_KINDS, isPortfolioName } from '../../src/domain/monitoring/index.ts';
import { CliError } from '../cli-error.ts';
import { checkBeforeStarting, finishBatch, runLocally, withEngine } from '../local-run.ts';
import { addTableAction } from '../option-parsers.ts';
import type { CommandOptions } from '../option-types.ts';
import { readPolicyOption } from '../policy-option.ts';
import { checkResultsDirectoryOption } from '../results-directory.ts';

type RescreenOptions = CommandOptions<'rescreen'>;

/** The portfolio name a file gives by default: its base name, with what names may not hold replaced. */
export function portfolioNameOf(file: string): string {
  return basename(file, extname(file))
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^[-_]+/, '')
    .slice(0, 48);
}

/** The change counts under the batch's counts. */
function changeLines(manifest: BatchManifest): string[] {
  if (!manifest.changes) return [];
  const { counts, documentsChanged } = manifest.changes;
  return [
    'changes since each document’s previous report (changes.csv):',
    ...CHANGE_KINDS.map((kind) => `  ${kind.padEnd(22)}${String(counts[kind]).padStart(8)}`),
    `  ${'documents changed'.padEnd(22)}${String(documentsChanged).padStart(8)}`,
  ];
}

/** Whether a name holds a run of 11 digits or more once separators are dropped: a CPF or a CNPJ, maybe. */
function holdsDocument(name: string): boolean {
  return /\d{11}/.test(name.replace(/[-_.]/g, ''));
}

async function rescreen(file: string, given: RescreenOptions): Promise<void> {
  const options = withEngine(given);
  const name = options.name ?? portfolioNameOf(file);
  // The name becomes S3 keys (portfolios/<name>.csv), schedule names and log fields, where no document may go.
  if (holdsDocument(name))
    throw new CliError(
      `${options.name === undefined ? 'the file name' : '--name'} holds what looks like a CPF or CNPJ, and a portfolio name goes into keys and logs: choose another with --name`,
    );
  if (!isPortfolioName(name))
    throw new CliError(
      `${JSON.stringify(name)} cannot name a portfolio: use --name with letters, digits, - and _`,
    );
  await checkBeforeStarting(options, file);
  // Compiled before anything starts: a broken policy is refused before any document is bought.
  const policy = await readPolicyOption(options.policy);
  await checkResultsDirectoryOption(options.out);
  await runLocally(file, options, async (run) => {
    if (policy !== null) await run.pipeline.putPolicy(policy.name, policy.bytes);
    await run.pipeline.putPortfolio(name, resolve(file), {
      bureau: options.bureau,
      ...(options.maxAgeHours === undefined ? {} : { maxAgeHours: options.maxAgeHours }),
      ...(policy === null ? {} : { policy: policy.name }),
    });
    const outcome = await run.pipeline.runPortfolio(name);
    if (!('batchId' in outcome)) throw new CliError(`portfolio ${name}: ${outcome.reason}`);
    await finishBatch(run, outcome.batchId, file, options.out, changeLines, [`portfolio ${name}: re-screen`]);
  });
}

export function registerRescreenCommand(program: Command): void {
  addTableAction(
    program
      .command('rescreen')
      .description(
        'Re-screen a portfolio on this machine and report what changed since the last screening (state is kept in --state)',
      )
      .argument('<portfolio.csv>', 'the portfolio: a customer list'),
    'rescreen',
    async (options, file: string) => rescreen(file, options),
  );
}
