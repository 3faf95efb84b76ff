/** A "random" source that returns the given values in turn (then repeats the last), to force fault paths. */
export function scriptedRandom(...values: number[]): () => number {
  let index = 0;
  return () => values[Math.min(index++, values.length - 1)] as number;
}
