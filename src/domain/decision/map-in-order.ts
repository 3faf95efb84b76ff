/**
 * Runs an asynchronous step over a stream with up to `concurrency` steps in flight, yielding the results in the
 * order of the input. A credit policy's engine evaluates off the main thread: one decision at a time leaves it idle
 * between answers, and a million rows need them in flight together, yet `decisions.csv` and the summary are written
 * in row order. Reads ahead of the slowest step by at most `concurrency` items, so memory stays bounded.
 */
export async function* mapInOrder<Item, Result>(
  items: Iterable<Item> | AsyncIterable<Item>,
  step: (item: Item) => Promise<Result>,
  concurrency: number,
): AsyncGenerator<Result> {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a whole number of at least 1, not ${concurrency}`);
  }
  const inFlight: Promise<Result>[] = [];
  for await (const item of items) {
    const result = step(item);
    // Rejections surface in order, when this result's turn comes; until then the rejection is not unhandled.
    result.catch(() => undefined);
    inFlight.push(result);
    if (inFlight.length >= concurrency) yield await (inFlight.shift() as Promise<Result>);
  }
  while (inFlight.length > 0) yield await (inFlight.shift() as Promise<Result>);
}
