import { type DecisionInput, decisionInput } from '../../src/domain/decision/index.ts';
import type { NormalisedReport, Section } from '../../src/domain/report/index.ts';
import { reportWith } from './normalised-reports.ts';

/** A category of negative records as a test writes it: how many, and their total in reais (null: not given). */
type Records = readonly [count: number, totalReais: number | null];

/** The figures a credit policy looks at; everything not given is clean (no negative record, a regular subject). */
export interface ReportFigures {
  readonly score?: number | null;
  readonly probabilityPct?: number | null;
  readonly protests?: Records;
  readonly pendingDebts?: Records;
  readonly bouncedCheques?: Records;
  /** Null: the bureau does not report stopped cheques (bureau B). */
  readonly stoppedCheques?: Records | null;
  readonly status?: string | null;
  readonly birthDate?: string | null;
  readonly foundationDate?: string | null;
  readonly presumedIncomeReais?: number | null;
  /** Dates of the queries by others (bureau A); null: not reported. */
  readonly queries?: readonly string[] | null;
}

const section = <Item>([count, total]: Records): Section<Item> => ({
  count,
  totalCents: total === null ? null : Math.round(total * 100),
  items: [],
});

function craft(base: NormalisedReport, figures: ReportFigures, clean: { status: string }): NormalisedReport {
  const subject = base.subject as NonNullable<NormalisedReport['subject']>;
  const score = base.score as NonNullable<NormalisedReport['score']>;
  return {
    ...base,
    fetchedAt: '2026-01-01T00:00:00.000Z',
    score:
      figures.score === null
        ? null
        : {
            ...score,
            value: figures.score ?? 720,
            probabilityPct: figures.probabilityPct === undefined ? 5 : figures.probabilityPct,
          },
    protests: section(figures.protests ?? [0, 0]),
    pendingDebts: section(figures.pendingDebts ?? [0, 0]),
    bouncedCheques: section(figures.bouncedCheques ?? [0, 0]),
    stoppedCheques: figures.stoppedCheques === null ? null : section(figures.stoppedCheques ?? [0, 0]),
    queryHistory:
      figures.queries === null ? null : (figures.queries ?? []).map((date) => ({ date, company: 'LOJA' })),
    subject: {
      ...subject,
      status: figures.status === undefined ? clean.status : figures.status,
      birthDate: figures.birthDate === undefined ? subject.birthDate : figures.birthDate,
      foundationDate: figures.foundationDate === undefined ? subject.foundationDate : figures.foundationDate,
      presumedIncomeCents:
        figures.presumedIncomeReais === undefined
          ? subject.presumedIncomeCents
          : figures.presumedIncomeReais === null
            ? null
            : figures.presumedIncomeReais * 100,
    },
  };
}

/**
 * A bureau A report on a person (born 1984-02-29, presumed income R$ 3.500,00, CPF status `0`), clean unless told:
 * score 720, no protest, debt or cheque, reported on 2026-01-01.
 */
export const personReport = (figures: ReportFigures = {}): NormalisedReport =>
  craft(reportWith({}), figures, { status: '0' });

/** A bureau A report on a company (founded 1999-08-15, ATIVA), clean unless told, reported on 2026-01-01. */
export function companyReport(figures: ReportFigures = {}): NormalisedReport {
  const person = reportWith({});
  const base: NormalisedReport = {
    ...person,
    document: '11222333000181',
    documentType: 'cnpj',
    subject: {
      ...(person.subject as NonNullable<NormalisedReport['subject']>),
      kind: 'company',
      birthDate: null,
      foundationDate: '1999-08-15',
      presumedIncomeCents: null,
    },
  };
  return craft(base, figures, { status: 'ATIVA' });
}

/** The decision input of a crafted report with the customer's columns (header → cell as typed). */
export const inputOf = (
  report: NormalisedReport,
  columns: Readonly<Record<string, string>> = {},
): DecisionInput => decisionInput(report, Object.keys(columns), Object.values(columns));
