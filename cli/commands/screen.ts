import { resolve } from 'node:path';
import type { Command } from 'commander';
import {
  addLocalRunOptions,
  approveOrStop,
  checkBeforeStarting,
  finishBatch,
  type LocalRunOptions,
  runLocally,
} from '../local-run.ts';

async function screen(file: string, options: LocalRunOptions): Promise<void> {
  await checkBeforeStarting(options, file);
  await runLocally(file, options, async (run) => {
    run.signal.throwIfAborted();
    const outcome = await run.pipeline.submit(resolve(file), options.bureau, {
      maxCharges: options.maxCharges,
    });
    await approveOrStop(run, outcome, options);
    await finishBatch(run, outcome.batchId, file, options.out);
  });
}

export function registerScreenCommand(program: Command): void {
  addLocalRunOptions(
    program
      .command('screen')
      .description(
        'Screen a customer list through the whole pipeline on this machine (no AWS account needed)',
      )
      .argument('<file>', 'CSV file of CPFs/CNPJs')
      .option(
        '--out <dir>',
        'where to put summary.csv, reports.jsonl and manifest.json (default out/<batchId>)',
      ),
  ).action(async (file: string, options: LocalRunOptions) => screen(file, options));
}
