/**
 * Deterministic credit reports for the emulator: the same document and bureau always give the same report, with a
 * realistic spread of clean records, protests, debts, bounced cheques, high and low scores and "not calculated".
 * The output is typed by the emulator's own picture of the answers ({@link CreditReport}), with every field and
 * quirk the interface describes; its tests check it against the pipeline's schemas.
 */
import {
  type Bureau,
  type Cheque,
  type CompanyA,
  type CompanyParticipation,
  type CreditQueryA,
  type CreditQueryB,
  type CreditReport,
  formatDate,
  formatMoney,
  type PendingDebt,
  type PersonA,
  type PersonB,
  type ProtestA,
  type ProtestB,
  type QueryHistoryItem,
  type Score,
  type SummaryEntry,
} from './credit-report-wire.ts';
import { type Profile, profileAt } from './customer-profile.ts';
import { cnpjCheckDigits, formatDocument } from './documents.ts';
import {
  BANKS,
  CITIES,
  CREDITORS,
  DEBT_KINDS,
  DISTRICTS,
  FIRST_NAMES,
  LEGAL_NATURES,
  STREETS,
  SURNAMES,
  TRADES,
} from './report-vocabulary.ts';
import { hashString, SeededRandom } from './seeded-random.ts';

export interface ReportGeneratorOptions {
  /** Name of the envelope field that carries the docs URL (the interface names it after the service). */
  readonly serviceName: string;
  readonly docsUrl: string;
  /**
   * The emulated point in time. Epoch 0 is every document's starting picture; each later epoch lets a share of
   * documents drift (new or cleared protests and debts, more bounced cheques, score moves, a registration status
   * change), so re-screening across epochs shows realistic changes. Deterministic per document and epoch.
   * @default 0
   */
  readonly epoch?: number;
}

export const DEFAULT_REPORT_GENERATOR_OPTIONS: ReportGeneratorOptions = {
  serviceName: 'bureau-emulator',
  docsUrl: 'https://docs.credit-screen.invalid/bureau-api',
};

// Dates are drawn back from a fixed day, not from today, so reports do not change with the clock.
const REFERENCE_DAY = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;

function pastDate(random: SeededRandom, maxDaysBack: number): string {
  return formatDate(REFERENCE_DAY - random.integer(1, maxDaysBack) * DAY);
}

function amountCents(random: SeededRandom): number {
  // Mostly small debts, a few large ones: cents from R$ 50 to R$ 250,000.
  return Math.round(5000 * 5000 ** random.next());
}

/** `valorTotal` is the number 0 when there is nothing, else a money string in the bureau's format. */
function total(cents: number, bureau: Bureau): number | string {
  return cents === 0 ? 0 : formatMoney(cents, bureau);
}

function personName(random: SeededRandom): string {
  return `${random.pick(FIRST_NAMES)} ${random.pick(SURNAMES)} ${random.pick(SURNAMES)}`;
}

function probabilityText(profile: Profile): string {
  if (profile.probability === 'not calculated') return 'Não calculado';
  const percent = (Math.round((1000 - profile.score) * 0.9) / 10).toFixed(1).replace('.', ',');
  return profile.probability === 'percent' ? `${percent}%` : percent;
}

function scoreMessage(profile: Profile): string {
  if (profile.probability === 'not calculated') return 'Probabilidade não calculada: histórico insuficiente.';
  if (profile.score >= 700) return 'Baixo risco de inadimplência.';
  if (profile.score >= 400) return 'Risco moderado de inadimplência.';
  return 'Alto risco de inadimplência.';
}

function scoreOf(profile: Profile): Score {
  return {
    score: String(profile.score),
    probabilidade: probabilityText(profile),
    mensagem: scoreMessage(profile),
  };
}

/** The other of two statuses when the profile says the status changed. */
function flip(status: string, pair: readonly [string, string], changed: boolean): string {
  return changed ? (status === pair[0] ? pair[1] : pair[0]) : status;
}

/** Who the document belongs to and where: the same at both bureaus, drawn from the document alone. */
interface Identity {
  readonly city: string;
  readonly state: string;
  readonly name: string;
  readonly birthDate: string;
  readonly street: string;
  readonly district: string;
  readonly postalCode: string;
}

/** Everything a report is drawn from. */
interface ReportSource {
  readonly document: string;
  readonly bureau: Bureau;
  readonly isPerson: boolean;
  readonly profile: Profile;
  /** The identity's stream, left where {@link drawIdentity} stopped: the registration data draws on from there. */
  readonly identityRandom: SeededRandom;
  readonly identity: Identity;
  /** The bureau's own stream for this document (query history, participations, the envelope). */
  readonly random: SeededRandom;
  readonly records: Records;
}

function drawIdentity(random: SeededRandom, isPerson: boolean): Identity {
  const [city, state] = random.pick(CITIES);
  const name = isPerson ? personName(random) : `${random.pick(TRADES)} ${random.pick(SURNAMES)} LTDA`;
  const birthDate = pastDate(random, 365 * 60 + 18 * 365);
  const street = `${random.pick(STREETS)}, ${random.integer(1, 3000)}`;
  const district = random.pick(DISTRICTS);
  const postalCode = `${random.digits(5)}-${random.digits(3)}`;
  return { city, state, name, birthDate, street, district, postalCode };
}

/** The records the profile says a document has, each kind drawn from its own stream. */
interface Records {
  readonly protests: readonly (ProtestA | ProtestB)[];
  readonly debts: readonly PendingDebt[];
  readonly bounced: readonly Cheque[];
  readonly stopped: readonly Cheque[];
}

function protestsOf(random: SeededRandom, count: number, bureau: Bureau): (ProtestA | ProtestB)[] {
  return Array.from({ length: count }, () => {
    const [protestCity, protestState] = random.pick(CITIES);
    const item: ProtestA = {
      data: pastDate(random, 1800),
      valor: formatMoney(amountCents(random), bureau),
      cartorio: `${random.integer(1, 10)}º TABELIONATO DE PROTESTO`,
      cidade: protestCity,
      tipoDocumento: random.pick(['DUPLICATA', 'NOTA PROMISSORIA', 'CHEQUE', 'CDA']),
      numeroDocumento: random.digits(8),
    };
    return bureau === 'b' ? { ...item, estado: protestState } : item;
  });
}

function debtsOf(random: SeededRandom, count: number, bureau: Bureau, city: string): PendingDebt[] {
  return Array.from({ length: count }, () => ({
    data: pastDate(random, 1500),
    valor: formatMoney(amountCents(random), bureau),
    informante: random.pick(CREDITORS),
    tipoPendencia: random.pick(DEBT_KINDS),
    // ASSUMPTION: bureau A's item shape is not specified; the emulator gives it bureau B's fields.
    situacao: random.pick(['ATIVA', 'EM NEGOCIACAO']),
    cidade: city,
  }));
}

function chequesOf(random: SeededRandom, count: number, bureau: Bureau, withValue: boolean): Cheque[] {
  return Array.from({ length: count }, () => ({
    data: pastDate(random, 1200),
    banco: random.pick(BANKS),
    agencia: random.digits(4),
    ...(withValue ? { valor: formatMoney(amountCents(random), bureau) } : {}),
  }));
}

function drawRecords(
  document: string,
  bureau: Bureau,
  profile: Profile,
  isPerson: boolean,
  city: string,
): Records {
  // Each kind of record draws from its own stream, so a record that appears at a later epoch leaves the
  // earlier ones (dates, amounts) as they were.
  const stream = (kind: string) => new SeededRandom(`report:${bureau}:${document}:${kind}`);
  // ASSUMPTION: cheque items are not specified. Bureau A on a CPF gives no cheque totals, so those items carry
  // no value either; elsewhere they carry `valor`.
  const chequeValues = !(bureau === 'a' && isPerson);
  return {
    protests: protestsOf(stream('protests'), profile.protests, bureau),
    debts: debtsOf(stream('debts'), profile.pendingDebts, bureau, city),
    bounced: chequesOf(stream('bounced-cheques'), profile.bouncedCheques, bureau, chequeValues),
    stopped: chequesOf(stream('stopped-cheques'), profile.stoppedCheques, bureau, chequeValues),
  };
}

/** A `resumoConsulta` entry: the count, and the total of the items' values unless the bureau gives none. */
function summaryOf(items: readonly { valor?: string }[], bureau: Bureau, withValue = true): SummaryEntry {
  if (!withValue) return { quantidadeTotal: items.length };
  const cents = items.reduce(
    (sum, item) => sum + (item.valor ? Number(item.valor.replace(/\D/g, '')) : 0),
    0,
  );
  return { quantidadeTotal: items.length, valorTotal: total(cents, bureau) };
}

/** The envelope around a query; its `cliente` is the last draw from the bureau's stream. */
function envelope<Query extends CreditQueryA | CreditQueryB>(
  source: ReportSource,
  options: ReportGeneratorOptions,
  consultaCredito: Query,
): CreditReport<Query> {
  const { bureau, document, random } = source;
  const queryCode = 100_000_000 + (hashString(`${bureau}:${document}`) % 900_000_000);
  return {
    status: 'sucesso',
    [options.serviceName]: options.docsUrl,
    dados: {
      consultaCredito,
      resumoRetorno: {
        cliente: random.chance(0.5) ? '' : 'CONTA EMULADA',
        codigoConsulta: queryCode,
        pdf: `https://relatorios.credit-screen.invalid/${bureau}/${queryCode}.pdf`,
      },
    },
  } as CreditReport<Query>;
}

function personA(source: ReportSource, income: number): PersonA {
  const { identityRandom: random, identity, document, profile } = source;
  const incomeBand = Math.floor(income / 100000);
  return {
    nome: identity.name,
    cpf: formatDocument(document, 'cpf'),
    regiaoCPF: document.charAt(8),
    dataNascimento: identity.birthDate,
    estadoCivil: String(random.integer(1, 5)),
    grauInstrucao: String(random.integer(1, 9)),
    nomeMae: personName(random).replace(/^\S+/, random.pick(['MARIA', 'ANA', 'LUCIA', 'FRANCISCA'])),
    numeroRG: random.chance(0.2) ? '' : random.digits(9),
    tituloEleitor: random.chance(0.3) ? '' : random.digits(12),
    situacao: flip(random.chance(0.95) ? '0' : '2', ['0', '2'], profile.statusChanged),
    sexo: random.pick(['M', 'F']),
    numeroDependentes: String(random.integer(0, 4)),
    endereco: identity.street,
    bairro: identity.district,
    cidade: identity.city,
    uf: identity.state,
    cep: identity.postalCode,
    telefone: random.chance(0.2)
      ? ''
      : `(${random.integer(11, 99)}) 9${random.digits(4)}-${random.digits(4)}`,
    email: random.chance(0.35)
      ? ''
      : `${identity.name.split(' ')[0]?.toLowerCase()}${random.integer(1, 99)}@example.com`,
    rendaPresumida: formatMoney(income, 'a'),
    textoRendaPresumida: `DE ${formatMoney(incomeBand * 100000, 'a')} A ${formatMoney((incomeBand + 1) * 100000, 'a')}`,
  };
}

function companyA(source: ReportSource): CompanyA {
  const { identityRandom: random, identity, document, profile } = source;
  return {
    razaoSocial: identity.name,
    nomeFantasia: random.chance(0.3) ? '' : identity.name.split(' ').slice(0, 2).join(' '),
    situacao: flip(random.chance(0.9) ? 'ATIVA' : 'BAIXADA', ['ATIVA', 'BAIXADA'], profile.statusChanged),
    naturezaJuridica: random.pick(LEGAL_NATURES),
    ramoAtividade: random.pick(TRADES),
    cnpj: formatDocument(document, 'cnpj'),
    dataFundacao: pastDate(random, 365 * 40),
    endereco: identity.street,
    bairro: identity.district,
    cidade: identity.city,
    uf: identity.state,
    cep: identity.postalCode,
  };
}

function queryHistory(random: SeededRandom): QueryHistoryItem[] {
  return Array.from({ length: random.integer(0, 5) }, () => ({
    data: pastDate(random, 365),
    empresa: random.pick(CREDITORS),
  }));
}

function reportA(source: ReportSource, options: ReportGeneratorOptions): CreditReport<CreditQueryA> {
  const { bureau, isPerson, records } = source;
  // Drawn for companies too, so both kinds of document keep the identity stream in step.
  const income = source.identityRandom.integer(1200, 25000) * 100;
  const registration = isPerson ? personA(source, income) : companyA(source);
  return envelope(source, options, {
    resumoConsulta: {
      protestos: summaryOf(records.protests, bureau),
      pendenciasFinanceiras: summaryOf(records.debts, bureau),
      chequesSemFundo: summaryOf(records.bounced, bureau, !isPerson),
      chequesSustados: summaryOf(records.stopped, bureau, !isPerson),
    },
    dadosCadastrais: registration,
    score: scoreOf(source.profile),
    protestos: records.protests,
    pendenciasFinanceiras: records.debts,
    chequesSemFundo: records.bounced,
    chequesSustados: records.stopped,
    historicoConsultas: queryHistory(source.random),
  });
}

function participations(random: SeededRandom): CompanyParticipation[] {
  return Array.from({ length: random.chance(0.35) ? random.integer(1, 3) : 0 }, () => {
    const base = `${random.digits(8)}0001`;
    const cnpj = `${base}${cnpjCheckDigits(base)}`;
    return {
      empresa: `${random.pick(TRADES)} ${random.pick(SURNAMES)} LTDA`,
      cnpj: formatDocument(cnpj, 'cnpj'),
      participacaoEmPorcentagem: random.chance(0.2)
        ? '100,00'
        : `${random.integer(1, 99)},${random.pick(['00', '50'])}`,
      uf: random.pick(CITIES)[1],
      dataEntrada: random.chance(0.3) ? '-' : pastDate(random, 365 * 20),
    };
  });
}

function personB(source: ReportSource): PersonB {
  return {
    nome: source.identity.name,
    cpf: formatDocument(source.document, 'cpf'),
    dataNascimento: source.identity.birthDate,
    nomeMae: personName(source.identityRandom),
  };
}

function reportB(source: ReportSource, options: ReportGeneratorOptions): CreditReport<CreditQueryB> {
  const { bureau, records } = source;
  const companies = participations(source.random);
  return envelope(source, options, {
    resumoConsulta: {
      protestos: summaryOf(records.protests, bureau),
      pendenciasFinanceiras: summaryOf(records.debts, bureau),
      chequesSemFundo: summaryOf(records.bounced, bureau),
    },
    dadosCadastrais: source.isPerson ? personB(source) : [],
    score: scoreOf(source.profile),
    protestos: records.protests as ProtestB[],
    pendenciasFinanceiras: records.debts,
    chequesSemFundo: records.bounced,
    participacaoEmEmpresas: companies,
  });
}

/**
 * Generates the report the emulated bureau returns for `document` (normalised, a valid CPF or CNPJ).
 */
export function generateCreditReport(
  document: string,
  bureau: 'a',
  options?: ReportGeneratorOptions,
): CreditReport<CreditQueryA>;
export function generateCreditReport(
  document: string,
  bureau: 'b',
  options?: ReportGeneratorOptions,
): CreditReport<CreditQueryB>;
export function generateCreditReport(
  document: string,
  bureau: Bureau,
  options?: ReportGeneratorOptions,
): CreditReport;
export function generateCreditReport(
  document: string,
  bureau: Bureau,
  options: ReportGeneratorOptions = DEFAULT_REPORT_GENERATOR_OPTIONS,
): CreditReport {
  const isPerson = document.length === 11;
  const profile = profileAt(document, options.epoch ?? 0);
  // Identity is the same at both bureaus; what each bureau knows differs a little.
  const identityRandom = new SeededRandom(`identity:${document}`);
  const identity = drawIdentity(identityRandom, isPerson);
  const source: ReportSource = {
    document,
    bureau,
    isPerson,
    profile,
    identityRandom,
    identity,
    random: new SeededRandom(`report:${bureau}:${document}`),
    records: drawRecords(document, bureau, profile, isPerson, identity.city),
  };
  return bureau === 'a' ? reportA(source, options) : reportB(source, options);
}
