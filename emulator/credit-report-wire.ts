/**
 * The emulator's own picture of the two credit-report answers, as the service interface describes them: plain
 * types and the two Brazilian formats it writes. Deliberately not shared with the pipeline's schemas, so a wrong
 * field in one is caught by the other (the emulator's tests check its output against the pipeline's schemas).
 */

/** Bureau A (`ap-bureau-a`) or bureau B (`ap-bureau-b-premium`). */
export type Bureau = 'a' | 'b';

/** A `resumoConsulta` entry: a count, and usually a total (the number 0, or money text). */
export interface SummaryEntry {
  readonly quantidadeTotal: number;
  readonly valorTotal?: number | string;
}

export interface Score {
  readonly score: string;
  /** A number-like text, a percentage text, or a text meaning not calculated. */
  readonly probabilidade: string;
  readonly mensagem: string;
}

export interface ProtestA {
  readonly data: string;
  readonly valor: string;
  readonly cartorio: string;
  readonly cidade: string;
  readonly tipoDocumento: string;
  readonly numeroDocumento: string;
}

export interface ProtestB extends ProtestA {
  readonly estado: string;
}

/** Bureau B's pending debt; ASSUMPTION: the emulator gives bureau A's (unspecified) items the same fields. */
export interface PendingDebt {
  readonly data: string;
  readonly valor: string;
  readonly informante: string;
  readonly tipoPendencia: string;
  readonly situacao: string;
  readonly cidade: string;
}

/** ASSUMPTION: cheque items are not specified; the emulator's carry these fields. */
export interface Cheque {
  readonly data: string;
  readonly banco: string;
  readonly agencia: string;
  readonly valor?: string;
}

export interface PersonA {
  readonly nome: string;
  readonly cpf: string;
  readonly regiaoCPF: string;
  readonly dataNascimento: string;
  readonly estadoCivil: string;
  readonly grauInstrucao: string;
  readonly nomeMae: string;
  readonly numeroRG: string;
  readonly tituloEleitor: string;
  readonly situacao: string;
  readonly sexo: string;
  readonly numeroDependentes: string;
  readonly endereco: string;
  readonly bairro: string;
  readonly cidade: string;
  readonly uf: string;
  readonly cep: string;
  readonly telefone: string;
  readonly email: string;
  readonly rendaPresumida: string;
  readonly textoRendaPresumida: string;
}

export interface CompanyA {
  readonly razaoSocial: string;
  readonly nomeFantasia: string;
  readonly situacao: string;
  readonly naturezaJuridica: string;
  readonly ramoAtividade: string;
  readonly cnpj: string;
  readonly dataFundacao: string;
  readonly endereco: string;
  readonly bairro: string;
  readonly cidade: string;
  readonly uf: string;
  readonly cep: string;
}

export interface PersonB {
  readonly nome: string;
  readonly cpf: string;
  readonly dataNascimento: string;
  readonly nomeMae: string;
}

export interface QueryHistoryItem {
  readonly data: string;
  readonly empresa: string;
}

export interface CompanyParticipation {
  readonly empresa: string;
  readonly cnpj: string;
  readonly participacaoEmPorcentagem: string;
  readonly uf: string;
  /** `-` when unknown. */
  readonly dataEntrada: string;
}

export interface CreditQueryA {
  readonly resumoConsulta: {
    readonly protestos: SummaryEntry;
    readonly pendenciasFinanceiras: SummaryEntry;
    readonly chequesSemFundo: SummaryEntry;
    readonly chequesSustados: SummaryEntry;
  };
  readonly dadosCadastrais: PersonA | CompanyA;
  readonly score: Score;
  readonly protestos: readonly ProtestA[];
  readonly pendenciasFinanceiras: readonly PendingDebt[];
  readonly chequesSemFundo: readonly Cheque[];
  readonly chequesSustados: readonly Cheque[];
  readonly historicoConsultas: readonly QueryHistoryItem[];
}

export interface CreditQueryB {
  readonly resumoConsulta: {
    readonly protestos: SummaryEntry;
    readonly pendenciasFinanceiras: SummaryEntry;
    readonly chequesSemFundo: SummaryEntry;
  };
  /** The empty array for a company. */
  readonly dadosCadastrais: PersonB | readonly [];
  readonly score: Score;
  readonly protestos: readonly ProtestB[];
  readonly pendenciasFinanceiras: readonly PendingDebt[];
  readonly chequesSemFundo: readonly Cheque[];
  readonly participacaoEmEmpresas: readonly CompanyParticipation[];
}

/**
 * A successful answer. Besides these fields the envelope has one named after the service, carrying its docs URL
 * (hence the index signature).
 */
export interface CreditReport<Query extends CreditQueryA | CreditQueryB = CreditQueryA | CreditQueryB> {
  readonly status: 'sucesso';
  readonly dados: {
    readonly consultaCredito: Query;
    readonly resumoRetorno: {
      readonly cliente: string;
      readonly codigoConsulta: number;
      readonly pdf: string;
    };
  };
  readonly [serviceName: string]: unknown;
}

/** Integer cents as the bureau writes money: a decimal comma, and at bureau A a dot between thousands. */
export function formatMoney(cents: number, bureau: Bureau): string {
  const units = String(Math.floor(cents / 100));
  const grouped = bureau === 'a' ? units.replace(/\B(?=(\d{3})+$)/g, '.') : units;
  return `${grouped},${String(cents % 100).padStart(2, '0')}`;
}

/** A day (epoch milliseconds, UTC) as the bureau writes dates: DD/MM/YYYY. */
export function formatDate(dayMs: number): string {
  const day = new Date(dayMs);
  const twoDigits = (value: number) => String(value).padStart(2, '0');
  return `${twoDigits(day.getUTCDate())}/${twoDigits(day.getUTCMonth() + 1)}/${day.getUTCFullYear()}`;
}
