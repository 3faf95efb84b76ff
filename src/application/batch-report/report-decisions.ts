import { DECISION_VALUES, type DecisionValue } from '../../domain/decision/index.ts';
import type { DecidedLine, Ranking } from '../../domain/summary/index.ts';
import { html, type SafeHtml } from './html.ts';
import type { ChartBar } from './report-charts.ts';
import {
  type Context,
  cell,
  chartFigure,
  documentText,
  figure,
  notShown,
  passThroughCells,
  passThroughHeads,
} from './report-parts.ts';

const DECISION_COLORS: Readonly<Record<DecisionValue, string>> = {
  approve: '#2b8a3e',
  review: '#f59f00',
  decline: '#b42318',
};
const UNDECIDED_COLOR = '#adb5bd';

/** The decision mix: rows per decision and the rows left undecided, as a chart and its table. */
function decisionMix(context: Context): SafeHtml {
  const { manifest, text, format } = context;
  const counts = manifest.decisions?.counts ?? { approve: 0, review: 0, decline: 0 };
  const decided = DECISION_VALUES.reduce((sum, value) => sum + counts[value], 0);
  const undecided = Math.max(0, manifest.counts.rows - decided);
  // The most severe first: what needs acting on leads.
  const order = [...DECISION_VALUES].reverse();
  const bars: ChartBar[] = [
    ...order.map((value) => ({
      label: text.decisions.value[value],
      value: counts[value],
      text: format.whole(counts[value]),
      color: DECISION_COLORS[value],
    })),
    {
      label: text.decisions.undecided,
      value: undecided,
      text: format.whole(undecided),
      color: UNDECIDED_COLOR,
    },
  ];
  const row = (label: string, color: string, value: number, name: string) =>
    html`<tr><th scope="row"><span class="swatch" style="background:${color}"></span>${label}</th><td class="num">${figure(value, format.whole(value), name)}</td><td class="num">${format.share(value, manifest.counts.rows)}</td></tr>`;
  const table = html`<table class="compact"><tbody>${order.map((value) =>
    row(text.decisions.value[value], DECISION_COLORS[value], counts[value], `decision:${value}`),
  )}${row(text.decisions.undecided, UNDECIDED_COLOR, undecided, 'decision:none')}</tbody></table>`;
  return chartFigure(text.decisions.title, context.charts.barChart(bars), table, context);
}

/** The reasons the policy gave most, with the rows each was given to (from the manifest's tally). */
function topReasons(context: Context): SafeHtml {
  const { manifest, text, format } = context;
  const reasons = manifest.decisions?.reasons ?? [];
  if (reasons.length === 0) return html`<p class="muted">${text.decisions.noReasons}</p>`;
  return html`<div class="scroll"><table class="decision-reasons"><thead><tr><th scope="col">${text.decisions.reason}</th><th scope="col" class="num">${text.decisions.rows}</th></tr></thead>
<tbody>${reasons.map(
    (reason) =>
      html`<tr><td data-label="${text.decisions.reason}"><code>${cell(reason.code)}</code> ${reason.text === reason.code ? '' : cell(reason.text)}</td><td class="num" data-label="${text.decisions.rows}">${figure(reason.rows, format.whole(reason.rows), `reason:${reason.code}`)}</td></tr>`,
  )}</tbody></table></div>`;
}

/** Customers the policy declined or sent to review, with its reasons: the people someone must act on. */
function decidedTable(title: string, ranking: Ranking<DecidedLine>, id: string, context: Context): SafeHtml {
  const { text, format } = context;
  if (ranking.items.length === 0) return html`<h3>${title}</h3><p class="muted">${text.noCustomers}</p>`;
  return html`<h3>${title}</h3>
<div class="scroll"><table class="customers stack" id="${id}"><thead><tr>
<th scope="col" class="num">${text.row}</th>${passThroughHeads(context)}<th scope="col">${text.name} / ${text.document}</th>
<th scope="col" class="num">${text.score}</th><th scope="col">${text.decisions.reasons}</th><th scope="col" class="num">${text.decisions.creditLimit}</th></tr></thead>
<tbody>${ranking.items.map(
    (
      line,
    ) => html`<tr><td class="num" data-label="${text.row}">${format.whole(line.row)}</td>${passThroughCells(line.passThrough, context)}
<td class="name" data-label="${text.name} / ${text.document}">${cell(line.name ?? '–')}<br><span class="doc muted">${documentText(line)}</span></td>
<td class="num" data-label="${text.score}"><b>${line.score === null ? '–' : format.whole(line.score)}</b></td>
<td class="reasons" data-label="${text.decisions.reasons}">${line.reasons.length === 0 ? '–' : line.reasons.map((reason, index) => html`${index > 0 ? html`<br>` : ''}${cell(reason.text)}`)}</td>
<td class="num" data-label="${text.decisions.creditLimit}">${line.creditLimit === null ? '–' : format.money(Math.round(line.creditLimit * 100))}</td></tr>`,
  )}</tbody></table></div>${notShown(ranking, context)}`;
}

/**
 * What the batch's credit policy decided: the mix, the reasons given most, and who was declined or sent to review.
 * Nothing for a batch without a policy.
 */
export function decisionsSection(context: Context): SafeHtml {
  const { manifest, statistics, text } = context;
  if (!manifest.policy || !manifest.decisions) return html``;
  return html`<section id="decisions"><h2>${text.decisions.title}</h2>
<p class="intro">${text.decisions.intro(cell(manifest.policy.name), manifest.policy.sha256)}</p>
${decisionMix(context)}
<h3>${text.decisions.reasonsTitle}</h3>${topReasons(context)}
${decidedTable(text.decisions.declinedTitle, statistics.decided.decline, 'declined', context)}
${decidedTable(text.decisions.reviewTitle, statistics.decided.review, 'review', context)}</section>`;
}
