/** What a local run does with a batch over the approval threshold: `--yes`, a question at a terminal, or a wait. */

import { createInterface } from 'node:readline/promises';
import { decideBatchApproval } from '../../src/application/batch-control/batch-control.ts';
import type { ApprovalDecision } from '../../src/domain/batch/index.ts';
import { formatBrl, formatDuration, type Quote } from '../../src/domain/spend/index.ts';
import { CliError } from './cli-error.ts';
import type { LocalRun, LocalRunOptions } from './local-run.ts';

/** A batch waiting for approval: its id, and the quote of what it would buy. */
export interface WaitingBatch {
  readonly batchId: string;
  readonly quote: Quote | null;
}

/**
 * Decides a batch over the approval threshold: `--yes` approves it, a person at a terminal is asked (no rejects it,
 * and it then completes with nothing bought). Without either nothing is bought and the batch waits in the state
 * directory: the error returned says how to approve it (a rerun with `--yes` resumes it). Null when the batch may
 * be followed.
 */
export async function decideApproval(
  run: LocalRun,
  waiting: WaitingBatch,
  options: LocalRunOptions,
): Promise<CliError | null> {
  const { batchId, quote } = waiting;
  const offer =
    quote === null
      ? `batch ${batchId} waits for approval`
      : `batch ${batchId} would buy ${quote.to_buy} documents for ${formatBrl(quote.estimated_cost)} (about ${formatDuration(quote.estimated_seconds)}), over the approval threshold`;
  let decision: ApprovalDecision;
  if (options.yes) decision = 'approved';
  else if (process.stdin.isTTY && process.stdout.isTTY)
    decision = (await askToBuy(offer)) ? 'approved' : 'rejected';
  else
    return new CliError(
      `${offer}: nothing was bought. Rerun with --yes, or approve it with: credit-screen approve ${batchId}`,
    );
  await decideBatchApproval(batchId, decision, { ...run.pipeline.adapters, logger: run.pipeline.logger });
  process.stderr.write(
    decision === 'approved'
      ? `batch ${batchId} approved\n`
      : `batch ${batchId} rejected: nothing is bought\n`,
  );
  return null;
}

/** The question asked last: batches of one run are asked about one after the other, never two prompts at once. */
let asking: Promise<unknown> = Promise.resolve();

function askToBuy(offer: string): Promise<boolean> {
  const answer = asking.then(async () => {
    const prompt = createInterface({ input: process.stdin, output: process.stdout });
    try {
      return /^(y|yes|s|sim)$/i.test((await prompt.question(`${offer}. Buy them? [y/N] `)).trim());
    } finally {
      prompt.close();
    }
  });
  asking = answer.catch(() => undefined);
  return answer;
}
