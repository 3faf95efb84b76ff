/** The flip matrix of a re-decision as the command prints it. */

import { type Flip, type FlipTally, SEVERITY } from '../../src/application/redecide/flip-tally.ts';
import { DECISION_VALUES } from '../../src/domain/decision/index.ts';
import { printable } from '../terminal-text.ts';

/** Reasons shown per flip in the text. */
const REASONS_SHOWN = 3;

const arrow = (flip: Pick<Flip, 'from' | 'to'>) => `${flip.from} → ${flip.to}`;

/** The matrix and the flips as text: previous decisions down, new ones across, totals on both. */
export function renderFlips(tally: FlipTally): string {
  const columns = [...DECISION_VALUES, 'total'];
  const rows = tally.previousRows();
  const label = 'previous \\ new';
  const lines: string[][] = [[label, ...columns]];
  const totals = { approve: 0, review: 0, decline: 0 };
  for (const previous of rows) {
    const cells = DECISION_VALUES.map((next) => tally.cell(previous, next));
    DECISION_VALUES.forEach((next, index) => {
      totals[next] += cells[index] ?? 0;
    });
    lines.push([previous, ...cells.map(String), String(cells.reduce((sum, count) => sum + count, 0))]);
  }
  const all = DECISION_VALUES.reduce((sum, next) => sum + totals[next], 0);
  lines.push(['total', ...DECISION_VALUES.map((next) => String(totals[next])), String(all)]);
  const widths = columns.map((_, index) =>
    Math.max(...lines.map((line) => (line[index + 1] ?? '').length), 7),
  );
  const first = Math.max(...lines.map((line) => (line[0] ?? '').length));
  const table = lines.map(
    (line) =>
      `${(line[0] ?? '').padEnd(first)}${line
        .slice(1)
        .map((cell, index) => `  ${cell.padStart(widths[index] ?? 0)}`)
        .join('')}`,
  );
  const flips = tally.flips();
  const fromNone = DECISION_VALUES.reduce((sum, next) => sum + tally.cell('none', next), 0);
  const changed = flips.reduce((sum, flip) => sum + (flip.from === 'none' ? 0 : flip.rows), 0);
  const before = all - fromNone;
  const counted = [
    ...(before > 0 || fromNone === 0
      ? [
          `changed: ${changed} of ${before} decisions (${(before === 0 ? 0 : (changed / before) * 100).toFixed(1)} %)`,
        ]
      : []),
    ...(fromNone > 0 ? [`first decisions: ${fromNone} rows the batch had not decided`] : []),
  ];
  const kinds = flips.map((flip) => {
    const improved = SEVERITY[flip.to] < SEVERITY[flip.from];
    const reasons = flip.reasons
      .slice(0, REASONS_SHOWN)
      .map((reason) => `${printable(reason.code, { maxLength: 80 })} (${reason.rows})`)
      .join(', ');
    const more = flip.reasons.length > REASONS_SHOWN ? `, +${flip.reasons.length - REASONS_SHOWN} more` : '';
    return {
      head: arrow(flip),
      rows: String(flip.rows),
      why: `${improved ? 'no longer: ' : ''}${reasons}${more}`,
    };
  });
  const headWidth = Math.max(0, ...kinds.map((kind) => kind.head.length));
  const rowsWidth = Math.max(0, ...kinds.map((kind) => kind.rows.length));
  return [
    ...table,
    '',
    ...counted,
    ...kinds.map(
      (kind) =>
        `  ${kind.head.padEnd(headWidth)}  ${kind.rows.padStart(rowsWidth)}${kind.why === '' ? '' : `  ${kind.why}`}`,
    ),
  ].join('\n');
}
