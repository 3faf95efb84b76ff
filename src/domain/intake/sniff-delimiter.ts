/** Field separators seen in customer lists; Brazilian Excel writes `;` because `,` is the decimal separator. */
const CANDIDATE_DELIMITERS = [';', ',', '\t', '|'] as const;
export type Delimiter = (typeof CANDIDATE_DELIMITERS)[number];

const MIN_PRESENCE = 0.6;

interface LineCounts {
  readonly counts: Map<Delimiter, number>;
}

function countPerLine(sample: string, complete: boolean): LineCounts[] {
  const lines: LineCounts[] = [];
  let counts = new Map<Delimiter, number>();
  let inQuotes = false;
  let hasContent = false;
  for (const character of sample) {
    if (character === '"') {
      // An escaped quote ("") toggles twice, so the state stays right without look-ahead.
      inQuotes = !inQuotes;
      hasContent = true;
    } else if (!inQuotes && character === '\n') {
      if (hasContent) lines.push({ counts });
      counts = new Map();
      hasContent = false;
    } else if (!inQuotes && (CANDIDATE_DELIMITERS as readonly string[]).includes(character)) {
      counts.set(character as Delimiter, (counts.get(character as Delimiter) ?? 0) + 1);
    } else if (character.trim() !== '') {
      hasContent = true;
    }
  }
  // The last line of an incomplete sample may be cut short; only a whole file's last line counts.
  if (complete && hasContent) lines.push({ counts });
  return lines;
}

interface Score {
  readonly delimiter: Delimiter;
  /** Share of lines where the candidate occurs at all. */
  readonly presence: number;
  /** Share of lines with the candidate's most common non-zero count. */
  readonly consistency: number;
  readonly modeCount: number;
}

function isBetter(score: Score, best: Score | null): boolean {
  if (best === null) return true;
  if (score.presence !== best.presence) return score.presence > best.presence;
  if (score.consistency !== best.consistency) return score.consistency > best.consistency;
  return score.modeCount > best.modeCount;
}

/**
 * Picks the delimiter of a CSV from its first lines, or null for a single-column file.
 *
 * A delimiter occurs on nearly every line, so candidates are ranked by the share of lines they occur on (at
 * least 60%), then by how consistently they split lines into the same number of fields, then by that number; ties
 * go to the order of {@link CANDIDATE_DELIMITERS}. So a ragged file still finds its delimiter, a `;` file with
 * decimal commas or commas in unquoted names stays `;`, and a one-column file where some values are Excel's
 * `1,23E+13` stays one column.
 */
export function sniffDelimiter(sample: string, complete: boolean): Delimiter | null {
  let lines = countPerLine(sample, complete);
  if (lines.length === 0) lines = countPerLine(sample, true);
  if (lines.length === 0) return null;
  let best: Score | null = null;
  for (const delimiter of CANDIDATE_DELIMITERS) {
    const frequency = new Map<number, number>();
    let present = 0;
    for (const line of lines) {
      const count = line.counts.get(delimiter) ?? 0;
      if (count > 0) present++;
      frequency.set(count, (frequency.get(count) ?? 0) + 1);
    }
    let modeCount = 0;
    let modeFrequency = 0;
    for (const [count, times] of frequency) {
      if (count > 0 && (times > modeFrequency || (times === modeFrequency && count > modeCount))) {
        modeCount = count;
        modeFrequency = times;
      }
    }
    const score: Score = {
      delimiter,
      presence: present / lines.length,
      consistency: modeFrequency / lines.length,
      modeCount,
    };
    if (score.presence >= MIN_PRESENCE && isBetter(score, best)) best = score;
  }
  return best?.delimiter ?? null;
}
