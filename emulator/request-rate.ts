/** The highest number of requests seen in any one-second window: how fast clients really called. */
export class PeakRateMeter {
  #timestamps: number[] = [];
  #head = 0;
  #peak = 0;

  record(nowMs: number): void {
    this.#timestamps.push(nowMs);
    while ((this.#timestamps[this.#head] as number) <= nowMs - 1000) this.#head++;
    // Compact now and then so the array does not grow with the run.
    if (this.#head > 4096) {
      this.#timestamps = this.#timestamps.slice(this.#head);
      this.#head = 0;
    }
    this.#peak = Math.max(this.#peak, this.#timestamps.length - this.#head);
  }

  get peakPerSecond(): number {
    return this.#peak;
  }

  reset(): void {
    this.#timestamps = [];
    this.#head = 0;
    this.#peak = 0;
  }
}
