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
import { registerSpendCommand } from './commands/spend.ts';
import { registerStudioCommand } from './commands/studio.ts';
import { registerSubmitCommand } from './commands/submit.ts';
import { printable } from './terminal-text.ts';

/** How every refusal is shown: one line, named after the program, with nothing a terminal would act on. */
function refusalLine(message: string): string {
  return `credit-screen: ${printable(message.trim())}\n`;
}

/** Builds the `credit-screen` program; commands register themselves so each lives in its own file. */
function buildProgram(): Command {
  const program = new Command('credit-screen')
    .description('Batch credit screening of Brazilian CPF/CNPJ lists')
    // Commander's own errors (an unknown option, a value an option refuses) are shown like ours: one line.
    .configureOutput({
      outputError: (message, write) => write(refusalLine(message.replace(/^error: /, ''))),
    })
    .exitOverride();
  registerCheckCommand(program);
  registerEmulatorCommand(program);
  registerNormalizeCommand(program);
  registerScreenCommand(program);
  registerRescreenCommand(program);
  registerSubmitCommand(program);
  registerReportCommand(program);
  registerBatchControlCommands(program);
  registerSpendCommand(program);
  registerAiCommand(program);
  registerStudioCommand(program);
  return program;
}

/**
 * Runs the command line and returns the exit code. Expected failures (a missing file, an unusable list, a bad
 * option) print one line on stderr and exit 2; anything else is a bug and keeps its stack.
 */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    await buildProgram().parseAsync([...argv]);
    return 0;
  } catch (error) {
    // A usage error is bad input like any other: status 2 (help and --version end with 0).
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof CliError) {
      process.stderr.write(refusalLine(error.message));
      return error.exitCode;
    }
    throw error;
  }
}
