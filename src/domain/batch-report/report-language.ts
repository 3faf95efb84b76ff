/** Languages a batch report is written in: Brazilian Portuguese for the people who read it, English on request. */
export const REPORT_LANGUAGES = ['pt-BR', 'en'] as const;
export type ReportLanguage = (typeof REPORT_LANGUAGES)[number];

export const DEFAULT_REPORT_LANGUAGE: ReportLanguage = 'pt-BR';

export function isReportLanguage(value: unknown): value is ReportLanguage {
  return typeof value === 'string' && (REPORT_LANGUAGES as readonly string[]).includes(value);
}
