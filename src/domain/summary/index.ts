// The summary carries a report's columns; they are defined with the report (domain/report), re-exported here.
export { type ReportColumns, reportColumns } from '../report/report-columns.ts';
// summary-csv-reader.ts is imported from its file: it brings papaparse, which the worker's bundle does not need.
export * from './review-lines.ts';
export type { RiskSegment } from './risk-segment.ts';
export * from './summary-csv.ts';
export * from './summary-statistics.ts';
export { TopList } from './top-list.ts';
