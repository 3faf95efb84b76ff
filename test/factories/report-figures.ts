/** The raw values of the figures a report page shows, by name (its `data-figure` attributes). */
export function reportFigures(html: string): Record<string, number> {
  return Object.fromEntries(
    [...html.matchAll(/data-figure="([^"]+)" data-value="(-?\d+)"/g)].map((match) => [
      match[1],
      Number(match[2]),
    ]),
  );
}
