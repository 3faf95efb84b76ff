/** What a local run does with a batch over the approval threshold: `--yes`, a question at a terminal, or a wait. */

import { createInterface } from 'node:readline/promises';
import { decideBatchApproval } from '../src/application/batch-control/batch-control.ts';
import { longestBatchSeconds } from '../src/contract/index.ts';
import type { ApprovalDecision } from '../src/domain/batch/index.ts';
import {
  describeOverrun,
  formatBrl,
  formatDuration,
  overrunOf,
  type Quote,
} from '../src/domain/spend/index.ts';
import { CliError } from './cli-error.ts';
import type { Interruption } from './interruption.ts';
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
  const { batchId } = waiting;
  const offer = offerOf(waiting, run);
  let decision: ApprovalDecision;
  if (options.yes) decision = 'approved';
  else if (process.stdin.isTTY && process.stdout.isTTY)
    decision = (await askToBuy(offer, run)) ? 'approved' : 'rejected';
  else return new CliError(`${offer}: nothing was bought. ${howToApprove(batchId, options)}`);
  await decideBatchApproval(batchId, decision, { ...run.pipeline.adapters, logger: run.pipeline.logger });
  process.stderr.write(
    decision === 'approved'
      ? `batch ${batchId} approved\n`
      : `batch ${batchId} rejected: nothing is bought\n`,
  );
  return null;
}

/** What the batch would buy, and, when its queries would outlast the batch, what would fit instead. */
function offerOf({ batchId, quote }: WaitingBatch, run: LocalRun): string {
  if (quote === null) return `batch ${batchId} waits for approval`;
  const { settings } = run.pipeline;
  const overrun = overrunOf(
    quote,
    settings.bureaus[quote.bureau].rateLimitPerSecond,
    longestBatchSeconds(settings),
  );
  return (
    `batch ${batchId} would buy ${quote.to_buy} documents for ${formatBrl(quote.estimated_cost)} (about ` +
    `${formatDuration(quote.estimated_seconds)}), over the approval threshold` +
    (overrun === null ? '' : `; ${describeOverrun(overrun)}`)
  );
}

/**
 * How a batch left waiting can still be bought. Without a state directory (`--no-state`, the memory engine) the
 * batch ends with the run, so no later `approve` could find it: only a rerun with `--yes` buys it.
 */
function howToApprove(batchId: string, options: LocalRunOptions): string {
  if (options.state === false)
    return 'Rerun with --yes to buy them: this run keeps no state directory, so the batch cannot be approved later';
  return `Rerun with --yes, or approve it with: credit-screen approve ${batchId}`;
}

/** The question asked last: batches of one run are asked about one after the other, never two prompts at once. */
let asking: Promise<unknown> = Promise.resolve();

/**
 * Asks at the terminal whether to buy. Ctrl-C there arrives as a key (the prompt puts the terminal in raw mode, so
 * no SIGINT is sent) and Ctrl-D closes the input without an answer: both stop the run as an interruption does,
 * with nothing bought. An interruption while it waits (`kill -INT`) closes the prompt, whose open input would
 * otherwise keep the process alive after the run has stopped.
 */
export function askToBuy(offer: string, run: Pick<Interruption, 'signal' | 'interrupt'>): Promise<boolean> {
  const answer = asking.then(async () => {
    run.signal.throwIfAborted();
    const prompt = createInterface({ input: process.stdin, output: process.stdout });
    prompt.on('SIGINT', () => run.interrupt());
    try {
      const text = await prompt.question(`${offer}. Buy them? [y/N] `, { signal: run.signal });
      return /^(y|yes|s|sim)$/i.test(text.trim());
    } catch (error) {
      if ((error as Error).name !== 'AbortError') throw error;
      // Closed without an answer (Ctrl-D), or aborted by the interruption itself.
      run.interrupt();
      throw run.signal.reason;
    } finally {
      prompt.close();
    }
  });
  asking = answer.catch(() => undefined);
  return answer;
}
