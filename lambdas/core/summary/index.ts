export { type ReportColumns, reportColumns } from './report-columns.ts';
export * from './summary-csv.ts';
export * from './summary-csv-reader.ts';
export * from './summary-statistics.ts';
export { TopList } from './top-list.ts';
