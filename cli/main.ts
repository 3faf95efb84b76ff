import { Command, CommanderError } from 'commander';
import { CliError } from './cli-error.ts';
import { printable } from './terminal-text.ts';

/** A module of commands: the names it registers, and its registration, imported on demand. */
interface CommandModule {
  readonly names: readonly string[];
  load(): Promise<(program: Command) => void>;
}

/**
 * Every command module, in the order `--help` lists them, with the command names each registers. A module is
 * imported only when one of its commands runs: loading them all (the AWS SDK, the local services, the emulator) took
 * about 0.7 s of CPU on every start, `ai status` and `check` included. A name missing here still works (an
 * unknown name loads every module) but slowly; a test keeps the lists equal to what the modules register.
 */
export const COMMAND_MODULES: readonly CommandModule[] = [
  { names: ['check'], load: async () => (await import('./commands/check.ts')).registerCheckCommand },
  { names: ['console'], load: async () => (await import('./commands/console.ts')).registerConsoleCommand },
  { names: ['emulator'], load: async () => (await import('./commands/emulator.ts')).registerEmulatorCommand },
  {
    names: ['normalize'],
    load: async () => (await import('./commands/normalize.ts')).registerNormalizeCommand,
  },
  { names: ['screen'], load: async () => (await import('./commands/screen.ts')).registerScreenCommand },
  { names: ['rescreen'], load: async () => (await import('./commands/rescreen.ts')).registerRescreenCommand },
  { names: ['submit'], load: async () => (await import('./commands/submit.ts')).registerSubmitCommand },
  { names: ['report'], load: async () => (await import('./commands/report.ts')).registerReportCommand },
  { names: ['decide'], load: async () => (await import('./commands/decide.ts')).registerDecideCommand },
  { names: ['audit'], load: async () => (await import('./commands/audit.ts')).registerAuditCommand },
  { names: ['subject'], load: async () => (await import('./commands/subject.ts')).registerSubjectCommand },
  {
    names: ['review', 'override', 'export'],
    load: async () => (await import('./commands/review.ts')).registerReviewCommands,
  },
  {
    names: ['batches', 'status', 'cancel', 'redrive', 'approve', 'reject', 'resume'],
    load: async () => (await import('./commands/batch-control.ts')).registerBatchControlCommands,
  },
  { names: ['spend'], load: async () => (await import('./commands/spend.ts')).registerSpendCommand },
  { names: ['ai'], load: async () => (await import('./commands/ai.ts')).registerAiCommand },
  { names: ['studio'], load: async () => (await import('./commands/studio.ts')).registerStudioCommand },
  { names: ['webhook'], load: async () => (await import('./commands/webhook.ts')).registerWebhookCommand },
];

/**
 * The modules to load for `argv`: the one that registers the command named, or all of them when no command is
 * named (`--help`, `help`, a mistyped name, which commander answers from the full list).
 */
function modulesFor(argv: readonly string[]): readonly CommandModule[] {
  const named = argv.slice(2).find((argument) => !argument.startsWith('-'));
  const module = COMMAND_MODULES.find((candidate) => named !== undefined && candidate.names.includes(named));
  return module === undefined ? COMMAND_MODULES : [module];
}

/** How every refusal is shown: one line, named after the program, with nothing a terminal would act on. */
function refusalLine(message: string): string {
  return `credit-screen: ${printable(message.trim())}\n`;
}

/** The longest value a refusal repeats: enough to recognise it, never a screenful. */
const MAX_ECHOED_VALUE = 80;

/** Commander's refusal of a value, with the value (`argument '…' is invalid`) cut to {@link MAX_ECHOED_VALUE}. */
function shortenedValue(message: string): string {
  return message.replace(
    /(argument ')([\s\S]*)(' is invalid)/,
    (_whole, before: string, value: string, after: string) =>
      `${before}${printable(value, { maxLength: MAX_ECHOED_VALUE })}${after}`,
  );
}

/** Builds the `credit-screen` program for `argv`; commands register themselves so each lives in its own file. */
async function buildProgram(argv: readonly string[]): Promise<Command> {
  const program = new Command('credit-screen')
    .description('Batch credit screening of Brazilian CPF/CNPJ lists')
    // Commander's own errors (an unknown option, a value an option refuses) are shown like ours: one line.
    .configureOutput({
      outputError: (message, write) =>
        write(
          refusalLine(
            shortenedValue(message.replace(/^error: /, '').replace(/\n\(Did you mean/, ' (did you mean')),
          ),
        ),
    })
    .exitOverride();
  const registrations = await Promise.all(modulesFor(argv).map((module) => module.load()));
  for (const register of registrations) register(program);
  return program;
}

/**
 * Runs the command line and returns the exit code. Expected failures (a missing file, an unusable list, a bad
 * option) print one line on stderr and exit 2; anything else is a bug and keeps its stack.
 */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    await (await buildProgram(argv)).parseAsync([...argv]);
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
