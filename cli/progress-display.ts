import cliProgress from 'cli-progress';
import type { BatchProgress } from './local/batch-results.ts';

/** Progress of a batch: a bar with rate and ETA on a terminal, a plain line every few seconds otherwise. */
export class ProgressDisplay {
  readonly #bar: cliProgress.SingleBar | null;
  #started = false;
  #lastLine = 0;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {
    this.#bar = stream.isTTY
      ? new cliProgress.SingleBar(
          {
            stream,
            format: 'screening |{bar}| {value}/{total} rows | {rate} rows/s | ETA {eta_formatted}',
            hideCursor: true,
            etaBuffer: 50,
          },
          cliProgress.Presets.shades_classic,
        )
      : null;
  }

  /**
   * Shows how far a batch has come. Once every row is settled and the batch is not completed yet (`status`), its
   * results are being written (the finaliser): that is said once, instead of the same count again and again.
   */
  update(settled: number, total: number | null, status?: BatchProgress['status']): void {
    if (total !== null && settled === total && (status === 'running' || status === 'finalising')) {
      this.#update(settled, total);
      if (this.#writingResults) return;
      this.#writingResults = true;
      this.#bar?.stop();
      this.stream.write('writing results…\n');
      return;
    }
    this.#update(settled, total);
  }

  #writingResults = false;

  #update(settled: number, total: number | null): void {
    if (this.#writingResults) return;
    const elapsedSeconds = (Date.now() - this.#startedAt()) / 1000;
    // The first second says nothing about the rate (the first rows settle at ingest, all at once).
    const rate = elapsedSeconds < 1 ? '…' : (settled / elapsedSeconds).toFixed(1);
    if (this.#bar) {
      if (total === null) return;
      if (!this.#started) {
        this.#bar.start(total, 0, { rate });
        this.#started = true;
      }
      this.#bar.setTotal(total);
      this.#bar.update(settled, { rate });
      return;
    }
    // A line when the count moved, every two seconds at most, and the last one as soon as it comes: a batch that
    // waits (for its finaliser, say) does not print the same line again and again.
    const count = `${settled}/${total ?? '?'}`;
    if (count === this.#lastCount) return;
    if (Date.now() - this.#lastLine >= 2000 || (total !== null && settled === total)) {
      this.#lastLine = Date.now();
      this.#lastCount = count;
      const share = total ? ` (${Math.floor((settled / total) * 100)}%)` : '';
      this.stream.write(`progress: ${count} rows settled${share}, ${rate} rows/s\n`);
    }
  }

  #lastCount = '';

  #firstUpdate: number | undefined;
  #startedAt(): number {
    this.#firstUpdate ??= Date.now();
    return this.#firstUpdate;
  }

  stop(): void {
    this.#bar?.stop();
  }
}
