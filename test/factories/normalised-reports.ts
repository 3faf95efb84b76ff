import { generateCreditReport } from '../../emulator/report-generator.ts';
import type { Bureau, NormalisedReport, Section } from '../../src/domain/report/index.ts';
import { normaliseCreditReport } from '../../src/domain/report/index.ts';
import { bureauResponse } from './bureau-responses.ts';

/** The emulator's report for a document at an epoch, normalised as the pipeline stores it. */
export function emulatedReport(document: string, bureau: Bureau, epoch: number): NormalisedReport {
  return normaliseCreditReport(generateCreditReport(document, bureau, { ...defaults, epoch }), {
    bureau,
    document,
    fetchedAt: `2026-0${Math.min(9, epoch + 1)}-01T00:00:00.000Z`,
  });
}

const defaults = { serviceName: 'bureau-emulator', docsUrl: 'https://docs.invalid' };

/** A normalised bureau A person report with chosen figures (everything else from the committed fixture). */
export function reportWith(figures: {
  readonly protests?: number;
  readonly pendingDebts?: number;
  readonly bouncedCheques?: number;
  readonly score?: number | null;
  readonly status?: string | null;
}): NormalisedReport {
  const base = normaliseCreditReport(bureauResponse('bureau-a-person'), {
    bureau: 'a',
    document: '51954022212',
    fetchedAt: '2026-01-01T00:00:00.000Z',
  });
  const section = <Item>(section: Section<Item>, count?: number): Section<Item> =>
    count === undefined ? section : { ...section, count };
  return {
    ...base,
    protests: section(base.protests, figures.protests),
    pendingDebts: section(base.pendingDebts, figures.pendingDebts),
    bouncedCheques: section(base.bouncedCheques, figures.bouncedCheques),
    score:
      figures.score === undefined
        ? base.score
        : figures.score === null
          ? null
          : { ...(base.score as NonNullable<NormalisedReport['score']>), value: figures.score },
    subject:
      figures.status === undefined || base.subject === null
        ? base.subject
        : { ...base.subject, status: figures.status },
  };
}
