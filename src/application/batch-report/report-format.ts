import type { ReportLanguage } from '../../domain/batch-report/report-language.ts';

/** Brazilian readers see Brasília time whatever the language; the page says so. */
const TIME_ZONE = 'America/Sao_Paulo';

const LOCALES: Readonly<Record<ReportLanguage, string>> = { 'pt-BR': 'pt-BR', en: 'en-US' };

/** Numbers, money and dates the way each language writes them (`R$ 1.234,56`, `31/12/2026` in Portuguese). */
export interface ReportFormat {
  readonly locale: string;
  whole(value: number): string;
  /** Integer cents as reais. */
  money(cents: number): string;
  /** A share from 0 to 1 as a percentage. */
  share(part: number, whole: number): string;
  /** A percentage already in percent (12.5 → 12,5 %). */
  percent(value: number): string;
  dateTime(iso: string): string;
  duration(milliseconds: number): string;
}

export function reportFormat(language: ReportLanguage): ReportFormat {
  const locale = LOCALES[language];
  const whole = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
  const money = new Intl.NumberFormat(locale, { style: 'currency', currency: 'BRL' });
  const share = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 1 });
  const decimal = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
  const dateTime = new Intl.DateTimeFormat(locale, {
    timeZone: TIME_ZONE,
    ...(language === 'pt-BR'
      ? { day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit' }
      : { dateStyle: 'medium', timeStyle: 'short' }),
  } as Intl.DateTimeFormatOptions);
  return {
    locale,
    whole: (value) => whole.format(value),
    money: (cents) => money.format(cents / 100),
    share: (part, total) => (total === 0 ? '–' : share.format(part / total)),
    percent: (value) => `${decimal.format(value)}%`,
    dateTime: (iso) => {
      const date = new Date(iso);
      return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
    },
    duration: (milliseconds) => {
      if (!(milliseconds >= 0)) return '–';
      const seconds = milliseconds / 1000;
      if (seconds < 60) return `${decimal.format(Math.round(seconds * 10) / 10)} s`;
      const minutes = Math.floor(seconds / 60);
      if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
      return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
    },
  };
}
