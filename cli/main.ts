import { Command, CommanderError } from 'commander';
import { CliError } from './cli-error.ts';
import { registerAiCommand } from './commands/ai.ts';
import { registerBatchControlCommands } from './commands/batch-control.ts';
import { registerCheckCommand } from './commands/check.ts';
import { registerEmulatorCommand } from './commands/emulator.ts';
import { registerNormalizeCommand } from './commands/normalize.ts';
import { registerReportCommand } from './commands/report.ts';
import { registerRescreenCommand } from './commands/rescreen.ts';
import { registerScreenCommand } from './commands/screen.ts';
import { registerStudioCommand } from './commands/studio.ts';
import { registerSubmitCommand } from './commands/submit.ts';

/** Builds the `credit-screen` program; commands register themselves so each lives in its own file. */
export function buildProgram(): Command {
  const program = new Command('credit-screen')
    .description('Batch credit screening of Brazilian CPF/CNPJ lists')
    .showHelpAfterError()
    .exitOverride();
  registerCheckCommand(program);
  registerEmulatorCommand(program);
  registerNormalizeCommand(program);
  registerScreenCommand(program);
  registerRescreenCommand(program);
  registerSubmitCommand(program);
  registerReportCommand(program);
  registerBatchControlCommands(program);
  registerAiCommand(program);
  registerStudioCommand(program);
  return program;
}

/**
 * Runs the command line and returns the exit code. Expected failures (a missing file, an unusable list) print
 * one line on stderr; anything else is a bug and keeps its stack.
 */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    await buildProgram().parseAsync([...argv]);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof CliError) {
      process.stderr.write(`credit-screen: ${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
}
