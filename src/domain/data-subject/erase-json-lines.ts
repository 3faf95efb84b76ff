import { textMentionsDocument } from './document-mentions.ts';

/**
 * Drops from a JSON Lines text (`reports.jsonl`) every line that names the document: its report is erased, not
 * blanked, so a reader of the file never meets a report without a subject. Line breaks of the rest are kept.
 *
 * @returns null when no line names it.
 */
export function eraseJsonLines(text: string, document: string): { text: string; lines: number } | null {
  const lines = text.split('\n');
  const kept = lines.filter((line) => !textMentionsDocument(line, document));
  const dropped = lines.length - kept.length;
  return dropped === 0 ? null : { text: kept.join('\n'), lines: dropped };
}
