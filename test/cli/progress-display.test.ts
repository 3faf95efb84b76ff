import { describe, expect, it } from 'vitest';
import { ProgressDisplay } from '../../cli/progress-display.ts';

/** A stream that is not a terminal and keeps what is written to it. */
function plainStream(): { stream: NodeJS.WriteStream; lines: string[] } {
  const lines: string[] = [];
  const stream = { isTTY: false, write: (text: string) => lines.push(text) > 0 };
  return { stream: stream as unknown as NodeJS.WriteStream, lines };
}

describe('progress without a terminal', () => {
  it('writes a line when the count moves, never the same count twice, however long a batch waits', () => {
    const { stream, lines } = plainStream();
    const display = new ProgressDisplay(stream);

    display.update(0, 60);
    for (let poll = 0; poll < 1000; poll++) display.update(60, 60);

    expect(lines.map((line) => line.replace(/, [\d.…]+ rows\/s\n$/, ''))).toEqual([
      'progress: 0/60 rows settled (0%)',
      'progress: 60/60 rows settled (100%)',
    ]);
  });

  it('says once that the results are being written while the finaliser runs, not the count again', () => {
    const { stream, lines } = plainStream();
    const display = new ProgressDisplay(stream);

    display.update(0, 311, 'running');
    for (let poll = 0; poll < 20; poll++) display.update(311, 311, poll < 5 ? 'running' : 'finalising');
    display.update(311, 311, 'completed');

    expect(lines.map((line) => line.replace(/, [\d.…]+ rows\/s\n$/, '').trimEnd())).toEqual([
      'progress: 0/311 rows settled (0%)',
      'progress: 311/311 rows settled (100%)',
      'writing results…',
    ]);
  });
});
