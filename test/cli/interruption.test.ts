import { describe, expect, it } from 'vitest';
import { CliError } from '../../cli/cli-error.ts';
import { abortOnInterrupt } from '../../cli/interruption.ts';

describe('abortOnInterrupt', () => {
  it('aborts with a one-line error of exit code 130 when one of its signals arrives', () => {
    const interruption = abortOnInterrupt('stopped following', ['SIGINT', 'SIGTERM']);

    process.emit('SIGTERM');
    interruption.release();

    expect(interruption.signal.aborted).toBe(true);
    expect(interruption.signal.reason).toBeInstanceOf(CliError);
    expect(interruption.signal.reason).toMatchObject({ message: 'stopped following', exitCode: 130 });
  });

  it('stops listening once released, leaving the process its own handlers', () => {
    const before = process.listenerCount('SIGINT');
    const interruption = abortOnInterrupt('interrupted');
    const listening = process.listenerCount('SIGINT');

    interruption.release();

    expect(listening).toBe(before + 1);
    expect(process.listenerCount('SIGINT')).toBe(before);
    expect(interruption.signal.aborted).toBe(false);
  });
});
