import { CHANGE_KINDS } from '../../domain/monitoring/index.ts';
import {
  type Band,
  type BatchStatistics,
  CHANGE_SEVERITY,
  CHARGE_STATES,
  type CustomerLine,
  PROBABILITY_BANDS,
  type Ranking,
  type RiskSegment,
  ROW_STATUSES,
  SCORE_BANDS,
} from '../../domain/summary/index.ts';
import { html, SafeHtml } from './html.ts';
import type { ChartBar } from './report-charts.ts';
import { decisionsSection } from './report-decisions.ts';
import { type ReportFormat, reportFormat } from './report-format.ts';
import { REPORT_MESSAGES } from './report-messages.ts';
import {
  type BatchReportInput,
  type Context,
  cell,
  chartFigure,
  documentText,
  figure,
  loadCharts,
  notShown,
  passThroughCells,
  passThroughHeads,
  type ReportManifest,
} from './report-parts.ts';
import { REPORT_STYLE } from './report-style.ts';

export type { BatchReportInput, ReportManifest } from './report-parts.ts';

/**
 * No script, no request: the page only carries inline styles and inline SVG, so anything else a hostile cell
 * might smuggle in would be blocked by the browser as well.
 */
export const REPORT_CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const SCORE_COLORS = ['#b42318', '#e8590c', '#f2c744', '#74b816', '#2b8a3e'];
const PROBABILITY_COLORS = ['#2b8a3e', '#74b816', '#f2c744', '#f59f00', '#e8590c', '#b42318'];
const MISSING_COLOR = '#adb5bd';
const CHANGE_COLORS: Readonly<Record<string, string>> = {
  decision_worsened: '#b42318',
  new_protest: '#b42318',
  new_pending_debt: '#b42318',
  bounced_cheques_up: '#e8590c',
  score_drop: '#e8590c',
  status_change: '#f59f00',
  protest_cleared: '#2b8a3e',
  pending_debt_cleared: '#2b8a3e',
  score_rise: '#2b8a3e',
  decision_improved: '#2b8a3e',
  first_screening: MISSING_COLOR,
};

function bandLabel(band: Band, index: number, count: number, format: ReportFormat, percent: boolean): string {
  if (!percent)
    return `${format.whole(band.from)}–${format.whole(index === count - 1 ? band.to : band.to - 1)}`;
  if (index === 0) return `< ${format.percent(band.to)}`;
  if (index === count - 1) return `≥ ${format.percent(band.from)}`;
  return `${format.whole(band.from)}–${format.percent(band.to)}`;
}

function header({ manifest, text, format }: Context): SafeHtml {
  // The customer's file name when the upload said it; the (opaque) key's last part otherwise.
  const file = manifest.source.name ?? manifest.source.key.split('/').pop() ?? manifest.source.key;
  const duration = Date.parse(manifest.completedAt) - Date.parse(manifest.createdAt);
  const entries: [string, string][] = [
    [text.batch, manifest.batchId],
    ...(manifest.portfolio === null ? [] : ([[text.portfolio, manifest.portfolio]] as [string, string][])),
    [text.bureau, manifest.bureau.toUpperCase()],
    [text.started, format.dateTime(manifest.createdAt)],
    [text.finished, format.dateTime(manifest.completedAt)],
    [text.duration, format.duration(duration)],
    [text.revision, String(manifest.revision)],
  ];
  return html`<header class="page-header">
<p class="eyebrow">credit-screen · ${text.title}</p>
<h1><span class="file" title="${text.file}">${file}</span> <span class="badge badge-${manifest.status}">${text.manifestStatus[manifest.status]}</span></h1>
<dl class="meta">${entries.map(([term, value]) => html`<div${term === text.batch ? html` class="batch-id"` : ''}><dt>${term}</dt><dd>${value}</dd></div>`)}</dl>
<p class="note">${text.timeZoneNote}</p>
</header>`;
}

function failure({ manifest, text }: Context): SafeHtml {
  const message =
    manifest.failure?.message ??
    (manifest.status === 'token_rejected' || manifest.status === 'cancelled'
      ? text.manifestStatus[manifest.status]
      : null);
  if (message === null) return html``;
  return html`<div class="alert" role="alert"><strong>${text.failureTitle}.</strong> ${message}</div>`;
}

type CountKey = Exclude<keyof RiskSegment, 'amountsUnknown'>;
type Restriction = keyof RiskSegment['amountsUnknown'];

function allSegments(statistics: BatchStatistics): RiskSegment {
  const { cpf, cnpj } = statistics.risk;
  const sum = (key: CountKey) => cpf[key] + cnpj[key];
  return {
    documents: sum('documents'),
    withAnyRestriction: sum('withAnyRestriction'),
    withProtests: sum('withProtests'),
    protestsCents: sum('protestsCents'),
    withPendingDebts: sum('withPendingDebts'),
    pendingDebtsCents: sum('pendingDebtsCents'),
    withBouncedCheques: sum('withBouncedCheques'),
    bouncedChequesCents: sum('bouncedChequesCents'),
    amountsUnknown: {
      protests: cpf.amountsUnknown.protests + cnpj.amountsUnknown.protests,
      pendingDebts: cpf.amountsUnknown.pendingDebts + cnpj.amountsUnknown.pendingDebts,
      bouncedCheques: cpf.amountsUnknown.bouncedCheques + cnpj.amountsUnknown.bouncedCheques,
    },
  };
}

/** Says how many documents' amounts the bureau did not give, so a total is not read as complete. */
function unknownNote(documents: number, { text, format }: Context): SafeHtml {
  return documents > 0
    ? html`<br><span class="muted small">${text.amountUnknown(format.whole(documents))}</span>`
    : html``;
}

function keyFigures({ manifest, statistics, text, format }: Context): SafeHtml {
  const all = allSegments(statistics);
  const lowScore = (statistics.scoreBands[0] ?? 0) + (statistics.scoreBands[1] ?? 0);
  const reported = statistics.withReport;
  const cards: [SafeHtml, string, string][] = [
    [figure(manifest.counts.rows, format.whole(manifest.counts.rows), 'rows'), text.keyFigures.rows, ''],
    [
      figure(reported, format.whole(reported), 'with-report'),
      text.keyFigures.withReport,
      format.share(reported, manifest.counts.rows),
    ],
    [
      figure(all.withAnyRestriction, format.whole(all.withAnyRestriction), 'with-restriction'),
      text.keyFigures.withRestriction,
      format.share(all.withAnyRestriction, reported),
    ],
    [
      figure(lowScore, format.whole(lowScore), 'low-score'),
      text.keyFigures.lowScore,
      format.share(lowScore, reported),
    ],
  ];
  return html`<section class="cards" aria-label="${text.title}">${cards.map(
    ([value, label, share]) =>
      html`<div class="card"><div class="card-value">${value}</div><div class="card-label">${label}${share ? html` <span class="muted">(${share})</span>` : ''}</div></div>`,
  )}</section>`;
}

function statuses({ manifest, statistics, text, format }: Context): SafeHtml {
  const counts = manifest.counts;
  const rows = ROW_STATUSES.map(
    (status) => html`<tr><th scope="row"><span class="dot dot-${status}"></span>${text.status[status]}</th>
<td class="muted">${text.statusMeaning[status]}</td>
<td class="num">${figure(counts[status], format.whole(counts[status]), `status:${status}`)}</td>
<td class="num">${format.share(counts[status], counts.rows)}</td></tr>`,
  );
  const reasons =
    statistics.reasons.length === 0
      ? html`<p class="muted">${text.noReasons}</p>`
      : html`<div class="scroll"><table class="reasons stack">
<thead><tr><th scope="col">${text.statusColumn}</th><th scope="col">${text.reason}</th><th scope="col" class="num">${text.count}</th><th scope="col">${text.examples}</th></tr></thead>
<tbody>${statistics.reasons.map(
          (
            group,
          ) => html`<tr><td data-label="${text.statusColumn}">${text.reasonedStatus[group.status]}</td><td class="reason" data-label="${text.reason}">${group.reason || '–'}</td>
<td class="num" data-label="${text.count}">${format.whole(group.count)}</td>
<td class="examples" data-label="${text.examples}">${group.examples.map((example) => html`<span><b>${format.whole(example.row)}</b>: <code>${cell(example.input) || '∅'}</code></span> `)}</td></tr>`,
        )}</tbody></table></div>
${statistics.otherReasonRows > 0 ? html`<p class="muted">${text.otherReasons(format.whole(statistics.otherReasonRows))}</p>` : ''}`;
  return html`<section id="statuses"><h2>${text.statusesTitle}</h2>
<p class="intro">${text.statusesIntro}</p>
<div class="scroll"><table class="statuses"><tbody>${rows}</tbody>
<tfoot><tr><th scope="row">${text.total}</th><td class="muted"></td><td class="num">${figure(counts.rows, format.whole(counts.rows), 'status:rows')}</td><td class="num">${format.share(counts.rows, counts.rows)}</td></tr></tfoot></table></div>
<h3>${text.reasonsTitle}</h3>${reasons}</section>`;
}

function spend(context: Context): SafeHtml {
  const { manifest, statistics, text, format } = context;
  const counts = manifest.counts;
  const tiles: [number, string, string][] = [
    [counts.screened, text.spend.queried, 'spend:queried'],
    [counts.cached, text.spend.reused, 'spend:reused'],
    [counts.duplicate, text.spend.duplicatesAvoided, 'spend:duplicates'],
    [counts.invalid_document, text.spend.invalidAvoided, 'spend:invalid'],
    [counts.failed + counts.cancelled + counts.not_queried, text.spend.notQueried, 'spend:not-queried'],
  ];
  const charges = manifest.charges ?? statistics.charges;
  const chargeTable =
    charges === null || charges === undefined
      ? html`<p class="muted">${text.chargesUnrecorded}</p>`
      : html`<table class="charges"><tbody>${CHARGE_STATES.map(
          (
            state,
          ) => html`<tr><th scope="row">${text.charge[state]}</th><td class="muted">${text.chargeMeaning[state]}</td>
<td class="num">${figure(charges[state], format.whole(charges[state]), `charge:${state}`)}</td></tr>`,
        )}</tbody></table>`;
  return html`<section id="spend"><h2>${text.spendTitle}</h2>
<p class="intro">${text.spendIntro}</p>
<div class="tiles">${tiles.map(
    ([value, label, name]) =>
      html`<div class="tile"><div class="tile-value">${figure(value, format.whole(value), name)}</div><div class="tile-label">${label}</div></div>`,
  )}</div>
${quoteLine(manifest, context)}
<h3>${text.chargesTitle}</h3>${chargeTable}</section>`;
}

/** The quote ingest made, and what the answered queries cost at its price (results written before quotes: none). */
function quoteLine(manifest: ReportManifest, { text, format }: Context): SafeHtml | string {
  const quote = manifest.quote;
  if (!quote) return '';
  const priceCents = Math.round(quote.price_per_query * 100);
  return html`<p class="quote">${text.quote(
    format.whole(quote.to_buy),
    format.money(priceCents),
    format.money(Math.round(quote.estimated_cost * 100)),
    format.money(priceCents * manifest.counts.screened),
  )}</p>`;
}

function distribution(
  context: Context,
  options: {
    readonly id: string;
    readonly title: string;
    readonly intro: string;
    readonly bandHeader: string;
    readonly bands: readonly Band[];
    readonly counts: readonly number[];
    readonly colors: readonly string[];
    readonly missing: number;
    readonly missingLabel: string;
    readonly percent: boolean;
  },
): SafeHtml {
  const { format, text, statistics } = context;
  const total = statistics.withReport;
  const bars: ChartBar[] = options.bands.map((band, index) => {
    const value = options.counts[index] ?? 0;
    return {
      label: bandLabel(band, index, options.bands.length, format, options.percent),
      value,
      text: value === 0 ? '' : format.whole(value),
      color: options.colors[index] ?? MISSING_COLOR,
    };
  });
  if (options.missing > 0)
    bars.push({
      label: options.missingLabel,
      value: options.missing,
      text: format.whole(options.missing),
      color: MISSING_COLOR,
    });
  if (total === 0)
    return html`<section id="${options.id}"><h2>${options.title}</h2><p class="muted">${text.noReports}</p></section>`;
  const table = html`<table class="compact"><thead><tr><th scope="col">${options.bandHeader}</th><th scope="col" class="num">${text.documents}</th><th scope="col" class="num">${text.share}</th></tr></thead>
<tbody>${bars.map(
    (bar, index) =>
      html`<tr><th scope="row"><span class="swatch" style="background:${bar.color}"></span>${bar.label}</th><td class="num">${figure(bar.value, format.whole(bar.value), `${options.id}:${index}`)}</td><td class="num">${format.share(bar.value, total)}</td></tr>`,
  )}</tbody></table>`;
  return html`<section id="${options.id}"><h2>${options.title}</h2>
<p class="intro">${options.intro}</p>
${chartFigure(options.title, context.charts.columnChart(bars), table, context)}</section>`;
}

function riskMix(context: Context): SafeHtml {
  const { statistics, text, format } = context;
  if (statistics.withReport === 0)
    return html`<section id="risk"><h2>${text.riskTitle}</h2><p class="muted">${text.noReports}</p></section>`;
  const segments: [string, RiskSegment, string][] = [
    [text.person, statistics.risk.cpf, 'cpf'],
    [text.company, statistics.risk.cnpj, 'cnpj'],
    [text.all, allSegments(statistics), 'all'],
  ];
  const restrictions: [string, CountKey, CountKey, string, Restriction][] = [
    [text.protests, 'withProtests', 'protestsCents', 'protests', 'protests'],
    [text.pendingDebts, 'withPendingDebts', 'pendingDebtsCents', 'pending-debts', 'pendingDebts'],
    [text.bouncedCheques, 'withBouncedCheques', 'bouncedChequesCents', 'bounced-cheques', 'bouncedCheques'],
  ];
  const shown = segments.filter(([, segment, key]) => key === 'all' || segment.documents > 0);
  const chart = context.charts.groupedColumnChart(
    restrictions.map(([label]) => label),
    shown
      .filter(([, , key]) => key !== 'all')
      .map(([name, segment, key]) => ({
        name,
        color: key === 'cpf' ? '#3b5bdb' : '#15aabf',
        values: restrictions.map(([, withKey]) =>
          segment.documents === 0 ? 0 : segment[withKey] / segment.documents,
        ),
        texts: restrictions.map(([, withKey]) => format.share(segment[withKey], segment.documents)),
      })),
  );
  const table = html`<div class="scroll"><table class="risk"><thead><tr><th scope="col"></th>${shown.map(
    ([name, segment]) =>
      html`<th scope="col" class="num">${name}<br><span class="muted">${format.whole(segment.documents)} ${text.documents.toLowerCase()}</span></th>`,
  )}</tr></thead>
<tbody>${restrictions.map(
    ([label, withKey, centsKey, name, unknownKey]) =>
      html`<tr><th scope="row">${label}</th>${shown.map(
        ([, segment, key]) =>
          html`<td class="num">${format.share(segment[withKey], segment.documents)} <span class="muted">(${format.whole(segment[withKey])})</span><br>${figure(segment[centsKey], format.money(segment[centsKey]), `risk:${key}:${name}`)}${unknownNote(segment.amountsUnknown[unknownKey], context)}</td>`,
      )}</tr>`,
  )}</tbody></table></div>`;
  return html`<section id="risk"><h2>${text.riskTitle}</h2>
<p class="intro">${text.riskIntro}</p>
${chartFigure(text.riskTitle, chart, table, context, true)}</section>`;
}

function customerTable(
  title: string,
  ranking: Ranking<CustomerLine>,
  id: string,
  context: Context,
): SafeHtml {
  const { text, format } = context;
  const amount = (cents: number | null, count: number) =>
    count === 0
      ? html`<span class="muted">–</span>`
      : html`${cents === null ? '?' : format.money(cents)} <span class="muted">(${format.whole(count)})</span>`;
  if (ranking.items.length === 0) return html`<h3>${title}</h3><p class="muted">${text.noCustomers}</p>`;
  return html`<h3>${title}</h3>
<div class="scroll"><table class="customers stack" id="${id}"><thead><tr>
<th scope="col" class="num">${text.row}</th>${passThroughHeads(context)}<th scope="col">${text.name} / ${text.document}</th>
<th scope="col" class="num">${text.score}</th><th scope="col" class="num">${text.probability}</th><th scope="col" class="num">${text.protests}</th><th scope="col" class="num">${text.pendingDebts}</th><th scope="col" class="num">${text.chequesShort}</th></tr></thead>
<tbody>${ranking.items.map(
    (
      line,
    ) => html`<tr><td class="num" data-label="${text.row}">${format.whole(line.row)}</td>${passThroughCells(line.passThrough, context)}
<td class="name" data-label="${text.name} / ${text.document}">${cell(line.name ?? '–')}<br><span class="doc muted">${documentText(line)}</span></td>
<td class="num" data-label="${text.score}"><b>${line.score === null ? '–' : format.whole(line.score)}</b></td>
<td class="num" data-label="${text.probability}">${line.defaultProbabilityPct === null ? '–' : format.percent(line.defaultProbabilityPct)}</td>
<td class="num" data-label="${text.protests}">${amount(line.protestsCents, line.protestsCount)}</td>
<td class="num" data-label="${text.pendingDebts}">${amount(line.pendingDebtsCents, line.pendingDebtsCount)}</td>
<td class="num" data-label="${text.chequesShort}">${line.bouncedChequesCount === 0 ? html`<span class="muted">–</span>` : format.whole(line.bouncedChequesCount)}</td></tr>`,
  )}</tbody></table></div>${notShown(ranking, context)}`;
}

function riskiest(context: Context): SafeHtml {
  const { statistics, text } = context;
  return html`<section id="riskiest"><h2>${text.riskiestTitle}</h2>
${customerTable(text.lowestScoresTitle, statistics.lowestScores, 'lowest-scores', context)}
${customerTable(text.largestDebtsTitle, statistics.largestDebts, 'largest-debts', context)}</section>`;
}

function changes(context: Context): SafeHtml {
  const { manifest, statistics, text, format } = context;
  if (manifest.changes === null) return html``;
  const counts = manifest.changes.counts;
  const kinds = CHANGE_SEVERITY.filter((kind) => CHANGE_KINDS.includes(kind));
  const bars: ChartBar[] = kinds.map((kind) => ({
    label: text.change[kind],
    value: counts[kind],
    text: format.whole(counts[kind]),
    color: CHANGE_COLORS[kind] ?? MISSING_COLOR,
  }));
  const table = html`<table class="compact"><thead><tr><th scope="col">${text.changeKind}</th><th scope="col" class="num">${text.count}</th></tr></thead>
<tbody>${kinds.map(
    (kind) =>
      html`<tr><th scope="row"><span class="swatch" style="background:${CHANGE_COLORS[kind] ?? MISSING_COLOR}"></span>${text.change[kind]}</th><td class="num">${figure(counts[kind], format.whole(counts[kind]), `change:${kind}`)}</td></tr>`,
  )}</tbody></table>`;
  const list = statistics.changes.list;
  const listTable =
    list.items.length === 0
      ? html`<p class="muted">${text.noChanges}</p>`
      : html`<div class="scroll"><table class="changes stack"><thead><tr><th scope="col" class="num">${text.row}</th>${passThroughHeads(context)}<th scope="col">${text.document}</th><th scope="col">${text.changeKind}</th><th scope="col" class="num">${text.before}</th><th scope="col" class="num">${text.after}</th><th scope="col" class="num">${text.delta}</th></tr></thead>
<tbody>${list.items.map(
          (line) =>
            html`<tr><td class="num" data-label="${text.row}">${format.whole(line.row)}</td>${passThroughCells(line.passThrough, context)}<td class="doc" data-label="${text.document}">${documentText({ document: line.document, documentType: line.document.length === 11 ? 'cpf' : 'cnpj' })}</td><td class="kind" data-label="${text.changeKind}"><span class="swatch" style="background:${CHANGE_COLORS[line.kind] ?? MISSING_COLOR}"></span>${text.change[line.kind]}</td><td class="num" data-label="${text.before}">${cell(line.before)}</td><td class="num" data-label="${text.after}">${cell(line.after)}</td><td class="num" data-label="${text.delta}">${line.delta}</td></tr>`,
        )}</tbody></table></div>${notShown(list, context)}`;
  return html`<section id="changes"><h2>${text.changesTitle}</h2>
<p class="intro">${text.changesIntro(format.whole(manifest.changes.documentsChanged))}</p>
${chartFigure(text.changesTitle, context.charts.barChart(bars), table, context)}
<h3>${text.mostSevereTitle}</h3>${listTable}</section>`;
}

function footer({ manifest, text, format, input }: Context): SafeHtml {
  const files =
    manifest.files === null ? [] : Object.values(manifest.files).filter((key) => key !== undefined);
  return html`<footer><p>${text.generated(format.dateTime(input.generatedAt ?? new Date().toISOString()))}</p>
${files.length > 0 ? html`<p>${text.filesNote}: ${files.map((key, index) => html`${index > 0 ? ', ' : ''}<code>${key.split('/').pop()}</code>`)}</p>` : ''}</footer>`;
}

/**
 * The batch report: one self-contained HTML page (inline style, charts as inline SVG rendered here, no script and
 * no request) with the batch, its statuses and reasons, spend, score and default-probability distributions, risk
 * mix, the riskiest customers and, for a portfolio re-screen, what changed.
 */
export async function renderBatchReport(input: BatchReportInput): Promise<string> {
  const context: Context = {
    charts: await loadCharts(),
    input,
    manifest: input.manifest,
    statistics: input.statistics,
    text: REPORT_MESSAGES[input.language],
    format: reportFormat(input.language),
  };
  const { text, statistics, manifest } = context;
  const title = `${text.title} ${manifest.batchId}`;
  const body =
    manifest.counts.rows === 0 && manifest.failure !== null
      ? html`${failure(context)}<p class="muted">${text.emptyBatch}</p>`
      : html`${failure(context)}${keyFigures(context)}${decisionsSection(context)}${changes(context)}
${distribution(context, { id: 'score', title: text.scoreTitle, intro: text.scoreIntro, bandHeader: text.scoreBand, bands: SCORE_BANDS, counts: statistics.scoreBands, colors: SCORE_COLORS, missing: statistics.noScore, missingLabel: text.noScore, percent: false })}
${distribution(context, { id: 'probability', title: text.probabilityTitle, intro: text.probabilityIntro, bandHeader: text.probabilityBand, bands: PROBABILITY_BANDS, counts: statistics.probabilityBands, colors: PROBABILITY_COLORS, missing: statistics.noProbability, missingLabel: text.noProbability, percent: true })}
${riskMix(context)}${spend(context)}${riskiest(context)}${statuses(context)}`;
  return `<!DOCTYPE html>
${html`<html lang="${input.language}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${REPORT_CONTENT_SECURITY_POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${new SafeHtml(REPORT_STYLE)}</style>
</head>
<body>
<main>
${header(context)}
${body}
${footer(context)}
</main>
</body>
</html>
`}`;
}
