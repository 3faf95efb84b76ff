/** The page's only style: readable on a phone, printable on A4, no web font (no request). */
export const REPORT_STYLE = `
:root { --ink: #1f2933; --muted: #616e7c; --line: #e4e7eb; --soft: #f5f7fa; --accent: #3b5bdb; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; color: var(--ink); background: #fff; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 20px 40px; }
h1 { font-size: 26px; line-height: 1.25; margin: 4px 0 12px; overflow-wrap: anywhere; }
h2 { font-size: 20px; margin: 0 0 4px; }
h3 { font-size: 16px; margin: 20px 0 8px; }
section { border-top: 1px solid var(--line); padding: 24px 0 8px; }
.eyebrow { margin: 0; color: var(--muted); font-size: 13px; letter-spacing: .04em; text-transform: uppercase; }
.badge { display: inline-block; vertical-align: middle; font-size: 13px; font-weight: 600; padding: 2px 10px; border-radius: 999px; background: #d3f9d8; color: #2b8a3e; }
.badge-token_rejected, .badge-file_rejected { background: #ffe3e3; color: #b42318; }
.badge-cancelled, .badge-budget_exhausted, .badge-rejected { background: #fff3bf; color: #8a5a00; }
.meta { display: grid; grid-template-columns: repeat(auto-fill, minmax(160px, 1fr)); gap: 8px 20px; margin: 0; }
.meta div { min-width: 0; }
.meta .batch-id { grid-column: span 2; }
.meta .batch-id dd { font: 600 14px/1.6 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.meta dt { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.meta dd { margin: 0; font-weight: 600; overflow-wrap: anywhere; }
.note, .muted { color: var(--muted); }
.note { font-size: 13px; margin: 8px 0 16px; }
.intro { color: var(--muted); margin: 0 0 12px; }
.alert { border: 1px solid #ffc9c9; background: #fff5f5; color: #8c1d18; padding: 12px 16px; border-radius: 8px; margin: 0 0 16px; }
.cards { display: grid; grid-template-columns: repeat(4, 1fr); gap: 12px; border: 0; padding: 0 0 20px; }
.card { background: var(--soft); border-radius: 10px; padding: 14px 16px; }
.card-value { font-size: 28px; font-weight: 700; line-height: 1.2; }
.card-label { color: var(--muted); font-size: 14px; }
.tiles { display: grid; grid-template-columns: repeat(5, 1fr); gap: 10px; }
.tile { border: 1px solid var(--line); border-radius: 10px; padding: 10px 12px; }
.tile-value { font-size: 22px; font-weight: 700; }
.tile-label { color: var(--muted); font-size: 13px; }
.chart { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 16px 24px; align-items: start; margin: 0; }
.chart.wide { grid-template-columns: minmax(0, 1fr); }
.chart.wide .chart-svg { max-width: 640px; }
.small { font-size: 12px; }
.chart-svg svg { display: block; width: 100%; height: auto; }
figcaption { font-size: 14px; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
thead th { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .03em; font-weight: 600; white-space: nowrap; }
tbody th { font-weight: 600; }
tfoot th, tfoot td { font-weight: 700; border-bottom: 0; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
thead th.num { white-space: normal; }
.customers thead th { white-space: normal; }
.doc { white-space: nowrap; font-variant-numeric: tabular-nums; }
.name { min-width: 180px; }
.name .doc { font-size: 13px; }
.examples span { white-space: nowrap; }
code { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--soft); padding: 0 4px; border-radius: 4px; overflow-wrap: anywhere; white-space: pre-wrap; }
.swatch, .dot { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 8px; vertical-align: baseline; }
.dot { border-radius: 50%; }
.dot-screened { background: #3b5bdb; } .dot-cached { background: #15aabf; } .dot-duplicate { background: #adb5bd; }
.dot-invalid_document { background: #f59f00; } .dot-failed { background: #b42318; } .dot-cancelled { background: #868e96; }
.table-note { font-size: 13px; }
table.compact tbody th { white-space: nowrap; }
footer { border-top: 1px solid var(--line); margin-top: 24px; padding-top: 12px; color: var(--muted); font-size: 13px; }
@media screen and (max-width: 760px) {
  main { padding: 16px 14px 32px; }
  h1 { font-size: 21px; }
  .cards { grid-template-columns: repeat(2, 1fr); gap: 8px; }
  .card-value { font-size: 22px; }
  .tiles { grid-template-columns: repeat(2, 1fr); }
  .chart { grid-template-columns: 1fr; }
  table { font-size: 13px; }
  th, td { padding: 5px 6px; }
  .statuses td.muted, .charges td.muted { display: none; }
  /* Wide tables become one card per row: every figure stays in view, each with its label. */
  table.stack thead { display: none; }
  table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; width: 100%; }
  table.stack tr { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 4px 10px; border: 1px solid var(--line); border-radius: 8px; padding: 8px 10px; margin: 0 0 8px; }
  table.stack td { border: 0; padding: 0; text-align: left; white-space: normal; }
  table.stack td::before { content: attr(data-label); display: block; font-size: 11px; color: var(--muted); text-transform: uppercase; letter-spacing: .03em; }
  table.stack td.name, table.stack td.reason, table.stack td.examples { grid-column: 1 / -1; }
  table.reasons tr { grid-template-columns: repeat(2, minmax(0, 1fr)); }
  table.reasons td.reason { order: -1; font-weight: 600; }
  table.reasons td.reason::before { display: none; }
  .examples span { white-space: normal; }
}
@page { size: A4; margin: 12mm; }
@media print {
  body { font-size: 11px; }
  main { max-width: none; padding: 0; }
  .scroll { overflow: visible; }
  figure, tr, .card, .tile { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
  .cards, .tiles { gap: 6px; }
  .card-value { font-size: 20px; }
  .tile-value { font-size: 16px; }
  table { font-size: 10px; }
  th, td { padding: 3px 5px; }
  thead th { font-size: 9px; }
  .num, .doc { white-space: normal; }
  .name { min-width: 0; }
  .name .doc, .small, code { font-size: 9px; }
  .chart-svg, .chart.wide .chart-svg { max-width: 105mm; }
  .card, .tile { border: 1px solid var(--line); }
  * { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
}
`;
