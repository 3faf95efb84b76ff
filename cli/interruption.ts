import { CliError } from './cli-error.ts';

/** An abort signal that Ctrl-C (and the other signals asked for) aborts, until {@link Interruption.release}. */
export interface Interruption {
  /** Aborted, with a {@link CliError} of exit code 130, when one of the signals arrives. */
  readonly signal: AbortSignal;
  /**
   * Aborts as the signals do, for an interruption that reaches the process as something else: Ctrl-C typed at a
   * prompt, which reads it as a key (the terminal is in raw mode and sends no SIGINT).
   */
  interrupt(): void;
  /** Stops listening for the signals (the process's default handling comes back). */
  release(): void;
}

/**
 * Listens once for each of `signals` and aborts with `message` (exit 130): a command that waits on something can
 * stop cleanly, cancelling or closing what it started, instead of being killed midway.
 */
export function abortOnInterrupt(
  message: string,
  signals: readonly NodeJS.Signals[] = ['SIGINT'],
): Interruption {
  const controller = new AbortController();
  const interrupt = () => controller.abort(new CliError(message, 130));
  for (const signal of signals) process.once(signal, interrupt);
  return {
    signal: controller.signal,
    interrupt,
    release: () => {
      for (const signal of signals) process.off(signal, interrupt);
    },
  };
}
