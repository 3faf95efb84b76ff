export { type ReportColumns, reportColumns } from './report-columns.ts';
export * from './summary-csv.ts';
