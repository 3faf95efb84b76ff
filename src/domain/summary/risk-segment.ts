/** The risk figures of one kind of document (CPF or CNPJ) in a batch's statistics. */

/** Protests, pending debts and bounced cheques of the documents of one type that have a report. */
export interface RiskSegment {
  readonly documents: number;
  /** Documents with at least one protest, pending debt or bounced cheque. */
  readonly withAnyRestriction: number;
  readonly withProtests: number;
  readonly protestsCents: number;
  readonly withPendingDebts: number;
  readonly pendingDebtsCents: number;
  readonly withBouncedCheques: number;
  readonly bouncedChequesCents: number;
  /** Documents with such records whose amount the bureau did not give (not in the totals). */
  readonly amountsUnknown: {
    readonly protests: number;
    readonly pendingDebts: number;
    readonly bouncedCheques: number;
  };
}

export type MutableSegment = { -readonly [K in Exclude<keyof RiskSegment, 'amountsUnknown'>]: number } & {
  amountsUnknown: { protests: number; pendingDebts: number; bouncedCheques: number };
};

export function emptySegment(): MutableSegment {
  return {
    amountsUnknown: { protests: 0, pendingDebts: 0, bouncedCheques: 0 },
    documents: 0,
    withAnyRestriction: 0,
    withProtests: 0,
    protestsCents: 0,
    withPendingDebts: 0,
    pendingDebtsCents: 0,
    withBouncedCheques: 0,
    bouncedChequesCents: 0,
  };
}

/** Adds a part's figures of a segment to the batch's. */
export function addSegment(total: MutableSegment, part: RiskSegment): void {
  for (const field of SEGMENT_COUNTS) total[field] += part[field];
  for (const field of ['protests', 'pendingDebts', 'bouncedCheques'] as const)
    total.amountsUnknown[field] += part.amountsUnknown[field];
}

const SEGMENT_COUNTS = [
  'documents',
  'withAnyRestriction',
  'withProtests',
  'protestsCents',
  'withPendingDebts',
  'pendingDebtsCents',
  'withBouncedCheques',
  'bouncedChequesCents',
] as const;

export const copySegment = (segment: MutableSegment): RiskSegment => ({
  ...segment,
  amountsUnknown: { ...segment.amountsUnknown },
});
