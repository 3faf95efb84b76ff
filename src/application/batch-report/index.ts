export { DEFAULT_REPORT_LANGUAGE, type ReportLanguage } from '../../domain/batch-report/report-language.ts';

export {
  REPORT_CONTENT_SECURITY_POLICY,
  type ReportManifest,
  renderBatchReport,
} from './render-batch-report.ts';
export { type BatchResultFiles, renderReportFromResults } from './report-from-results.ts';
