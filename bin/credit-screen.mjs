#!/usr/bin/env node
// Launcher of the credit-screen command line. The project is TypeScript run through tsx, so `npx credit-screen`
// works right after `npm install`, with no build step to remember.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Node's flags for the commands that decide rows by the million in this process (their ZEN processes have their
 * own). A young generation of 32 MB semi-spaces holds a batch of rows in flight until it is written, instead of
 * copying it into the old generation: measured with `npm run bench:decide`, `decide` spent a quarter of its time
 * collecting garbage with Node's default, and took a third less CPU with these. The old generation is capped, which
 * also makes V8 grow it less eagerly (400 MB peak for the command and its ZEN processes uncapped, 343 MB capped;
 * `decide` keeps no more than its rows in flight and the decisions that duplicates repeat).
 */
const TUNED_COMMANDS = { decide: ['--max-semi-space-size=32', '--max-old-space-size=512'] };

const flags = TUNED_COMMANDS[process.argv[2]];
// Run here: a command without flags of its own, or the process already started with them (or with the user's own).
const runHere =
  flags === undefined || process.execArgv.some((flag) => flag.startsWith('--max-semi-space-size'));

if (runHere) {
  const { register } = await import('tsx/esm/api');
  // The AWS SDK warns on every command under Node 20 that its 2027 releases will need Node 22: said once in the
  // README, not on each run. Set the variable to "false" to see it again.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  register();
  const { main } = await import('../cli/main.ts');
  process.exitCode = await main(process.argv);
} else {
  // A signal sent to this process is passed on, so that `kill` stops the command it started. (Ctrl-C reaches both,
  // being sent to the terminal's process group: `decide` has no handler of its own, so the second is moot.) The
  // handlers are in place before the command starts: a signal in between would otherwise end this process alone
  // and leave the command running on, holding the caller's pipes open.
  let command;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => command.kill(signal));
  // A process cannot size its own heap once started: the command runs again in one started with the flags.
  command = spawn(
    process.execPath,
    [...process.execArgv, ...flags, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  command.on('exit', (code, signal) => {
    if (signal !== null) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exitCode = code ?? 1;
  });
}
