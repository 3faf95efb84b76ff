import { describe, expect, it } from 'vitest';
import { ProgressDisplay } from '../../tools/cli/progress-display.ts';

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
});
