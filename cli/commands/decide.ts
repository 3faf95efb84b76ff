import { resolve } from 'node:path';
import type { Command } from 'commander';
import { type RedecideOutcome, redecide } from '../../src/application/redecide/redecide.ts';
import type { ResultFiles } from '../../src/application/redecide/result-files.ts';
import type { BatchManifest } from '../../src/contract/index.ts';
import { ResultsFileError } from '../../src/domain/summary/summary-csv-reader.ts';
import { CliError } from '../cli-error.ts';
import { DecisionsFile } from '../decide/decisions-file.ts';
import { renderFlips } from '../decide/flip-report.ts';
import { withResultFiles } from '../decide/result-files.ts';
import { abortOnInterrupt } from '../interruption.ts';
import { fileErrorReason } from '../local/private-files.ts';
import { addTableAction } from '../option-parsers.ts';
import type { CommandOptions } from '../option-types.ts';
import { type PolicyOption, readPolicyOption } from '../policy-option.ts';
import { printable } from '../terminal-text.ts';

const DECISIONS_FILE = 'decisions.csv';

/** What the batch was decided with before, in words. */
function previously(manifest: BatchManifest | null, decidedBefore: boolean): string {
  if (!decidedBefore) return 'the batch had no policy: every previous decision is none';
  const policy = manifest?.policy;
  return policy
    ? `previously decided by ${printable(policy.name)} (sha256 ${policy.sha256.slice(0, 12)})`
    : 'previously decided by the policy of its summary';
}

function report(outcome: RedecideOutcome, policy: PolicyOption, files: ResultFiles, path: string): string {
  const withoutReport = outcome.rows - outcome.decided;
  return [
    `decisions: ${printable(path)}`,
    `decided ${outcome.decided} of ${outcome.rows} rows with ${printable(policy.name)} (sha256 ${policy.policy.sha256.slice(0, 12)}), 0 bureau requests${withoutReport > 0 ? `; ${withoutReport} rows without a report have no decision` : ''}`,
    previously(files.manifest, outcome.layout.decided),
    '',
    renderFlips(outcome.tally),
    '',
  ].join('\n');
}

/** Decides the files again into `decisions.csv` in `out`; the file appears only once complete. */
async function decideFiles(files: ResultFiles, policy: PolicyOption, out: string): Promise<RedecideOutcome> {
  let file: DecisionsFile;
  try {
    file = await DecisionsFile.create(out, DECISIONS_FILE);
  } catch (error) {
    throw new CliError(`--out ${printable(out)}: ${fileErrorReason(error)}`);
  }
  // Ctrl-C stops between two rows and removes the unfinished file.
  const interruption = abortOnInterrupt(`interrupted: no ${DECISIONS_FILE} written`);
  try {
    const outcome = await redecide(files, policy.policy, file, {
      warn: (message) => process.stderr.write(`warning: ${printable(message)}\n`),
      signal: interruption.signal,
    });
    await file.commit();
    return outcome;
  } catch (error) {
    await file.discard();
    if (error instanceof ResultsFileError) throw new CliError(`${files.where}: ${error.message}`);
    throw error;
  } finally {
    interruption.release();
  }
}

async function decide(target: string, options: CommandOptions<'decide'>): Promise<void> {
  // A broken policy is refused before any result is read (or a local state opened).
  const policy = (await readPolicyOption(options.policy)) as PolicyOption;
  await withResultFiles(target, options, async (files) => {
    const out = resolve(options.out ?? files.defaultOut);
    const outcome = await decideFiles(files, policy, out);
    process.stdout.write(
      options.json
        ? `${JSON.stringify(outcome.tally.summary())}\n`
        : report(outcome, policy, files, resolve(out, DECISIONS_FILE)),
    );
    // Written, for the record; but a policy that decides nothing is no result to go on with.
    if (outcome.decided > 0 && outcome.policyErrors.rows === outcome.decided)
      throw new CliError(
        `${printable(policy.name)} could not decide any of the ${outcome.decided} rows: every decision is POLICY_ERROR (a review); the first: ${printable(outcome.policyErrors.first ?? 'no detail')}`,
        1,
      );
  });
}

export function registerDecideCommand(program: Command): void {
  addTableAction(
    program
      .command('decide')
      .description(
        'Decide a batch again with another credit policy, from its stored reports (no bureau request): writes decisions.csv and prints how the decisions changed',
      )
      .argument('<results-dir|batchId>', 'a folder with summary.csv and reports.jsonl, or a batch id'),
    'decide',
    async (options, target: string) => decide(target, options),
  );
}
