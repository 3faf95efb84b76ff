export * from './brazilian-formats.ts';
export {
  MalformedReportError,
  normaliseCreditReport,
  normaliseUnidentifiedReport,
} from './normalise-report.ts';
export type * from './normalised-report.ts';
export * from './raw-credit-report.ts';
export { documentOfResponse, isReportArchive, type ReportArchive } from './report-archive.ts';
export { type ReportColumns, reportColumns } from './report-columns.ts';
