import type { BatchManifest } from '../../contract/index.ts';

/** The two files a re-decision reads, by their names in a results folder. */
export const RESULT_FILE_NAMES = { summary: 'summary.csv', reports: 'reports.jsonl' } as const;
type ResultFile = keyof typeof RESULT_FILE_NAMES;

/**
 * A batch's stored results, each file opened as a new stream every time it is asked for: a results folder on this
 * machine (the command line's), or the pipeline's bucket.
 */
export interface ResultFiles {
  /** The folder, or `batch <id> in <where>`, for messages. */
  readonly where: string;
  /** Null for a folder without `manifest.json` (its summary and reports are enough). */
  readonly manifest: BatchManifest | null;
  /** Where `decisions.csv` goes without `--out`. */
  readonly defaultOut: string;
  open(file: ResultFile): AsyncIterable<Uint8Array>;
}

/** Where the decisions go, one piece of text after the other. */
export interface TextSink {
  write(text: string): Promise<void>;
}
