import type { Command } from 'commander';
import {
  asServiceCliError,
  type ConnectionOptions,
  connect,
  printReply,
  withConnectionOptions,
} from '../service-connection.ts';

async function status(command: Command): Promise<void> {
  const options = command.optsWithGlobals<ConnectionOptions>();
  try {
    printReply(await connect(options).aiStatus(), options);
  } catch (error) {
    throw asServiceCliError(error);
  }
}

export function registerAiCommand(program: Command): void {
  const ai = withConnectionOptions(program.command('ai').description('AI API of the service'));
  ai.command('status')
    .description('Show the status of the AI API (GET /ai)')
    .action(async (_options: unknown, command: Command) => status(command));
}
