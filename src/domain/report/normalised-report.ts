import type { DocumentType } from '../documents/index.ts';
import type { Bureau } from './raw-credit-report.ts';

/**
 * One credit report in a single shape for both bureaus and both kinds of subject. Downstream consumers (the
 * summary CSV, `reports.jsonl`, change reports) rely on these names. Money is integer cents; dates are ISO
 * `YYYY-MM-DD`; null always means "unknown or not reported", never zero.
 */
export interface NormalisedReport {
  /** Version of this shape, for consumers of archived reports. */
  readonly schemaVersion: 1;
  readonly document: string;
  readonly documentType: DocumentType;
  readonly bureau: Bureau;
  /** `resumoRetorno.codigoConsulta`. */
  readonly queryCode: number | null;
  /** Link to the bureau's PDF of the report; null when empty. */
  readonly pdfUrl: string | null;
  /** `resumoRetorno.cliente`, the account's own reference; null when empty. */
  readonly clientReference: string | null;
  /** When the bureau answered (ISO 8601). */
  readonly fetchedAt: string;
  /** Registration data; null when the bureau returns none (bureau B companies). */
  readonly subject: Subject | null;
  readonly score: Score | null;
  readonly protests: Section<ProtestItem>;
  readonly pendingDebts: Section<PendingDebtItem>;
  readonly bouncedCheques: Section<ChequeItem>;
  /** Null for bureau B, which does not report stopped cheques. */
  readonly stoppedCheques: Section<ChequeItem> | null;
  /** Who queried this document before (bureau A); null for bureau B. */
  readonly queryHistory: readonly QueryHistoryItem[] | null;
  /** Companies the subject takes part in (bureau B); null for bureau A. */
  readonly companyParticipations: readonly CompanyParticipation[] | null;
  /** Every value that could not be read, with where it was; the raw value stays in the archived response. */
  readonly warnings: readonly string[];
}

export interface Subject {
  readonly kind: 'person' | 'company';
  /** `nome` or `razaoSocial`. */
  readonly name: string | null;
  /** `nomeFantasia` (companies, bureau A). */
  readonly tradeName: string | null;
  readonly birthDate: string | null;
  readonly foundationDate: string | null;
  /** `situacao`, a coded value whose meanings the interface does not give: kept as the bureau wrote it. */
  readonly status: string | null;
  readonly motherName: string | null;
  readonly address: Address | null;
  readonly phone: string | null;
  readonly email: string | null;
  /** `rendaPresumida` in cents, when it is an amount. */
  readonly presumedIncomeCents: number | null;
  /** `textoRendaPresumida`, e.g. a range. */
  readonly presumedIncomeText: string | null;
  readonly legalNature: string | null;
  readonly activity: string | null;
  /** Registration fields not mapped above, as written: coded values whose meanings the interface does not give
   * (estadoCivil, grauInstrucao, regiaoCPF, sexo, …) and the other identity numbers (numeroRG, tituloEleitor). */
  readonly otherFields: Readonly<Record<string, string>>;
}

interface Address {
  readonly street: string | null;
  readonly district: string | null;
  readonly city: string | null;
  readonly state: string | null;
  readonly postalCode: string | null;
}

export interface Score {
  readonly value: number | null;
  /** Probability of default in percent (12.5 means 12.5%); null when the bureau did not calculate it. */
  readonly probabilityPct: number | null;
  readonly message: string | null;
  /** The three fields as the bureau sent them. */
  readonly raw: { readonly score: unknown; readonly probabilidade: unknown; readonly mensagem: unknown };
}

/** A category of negative records: the bureau's own count and total, and the items it listed. */
export interface Section<Item> {
  readonly count: number;
  /** Null when the bureau gives no total (bureau A cheques on a CPF): unknown, not zero. */
  readonly totalCents: number | null;
  readonly items: readonly Item[];
}

export interface ProtestItem {
  readonly date: string | null;
  readonly amountCents: number | null;
  readonly notary: string | null;
  readonly city: string | null;
  /** Bureau B only. */
  readonly state: string | null;
  readonly documentKind: string | null;
  readonly documentNumber: string | null;
}

export interface PendingDebtItem {
  readonly date: string | null;
  readonly amountCents: number | null;
  readonly creditor: string | null;
  readonly kind: string | null;
  readonly status: string | null;
  readonly city: string | null;
  /** The item as sent: bureau A's item shape is not specified, so nothing of it is dropped. */
  readonly raw: Readonly<Record<string, unknown>>;
}

/** The interface does not show cheque items: the usual fields are read when present and the item is kept raw. */
export interface ChequeItem {
  readonly date: string | null;
  readonly amountCents: number | null;
  readonly raw: Readonly<Record<string, unknown>>;
}

export interface QueryHistoryItem {
  readonly date: string | null;
  readonly company: string | null;
}

export interface CompanyParticipation {
  readonly company: string | null;
  readonly cnpj: string | null;
  readonly sharePct: number | null;
  readonly state: string | null;
  /** Null when the bureau writes `-` (unknown). */
  readonly entryDate: string | null;
}
