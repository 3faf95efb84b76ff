/**
 * Deterministic credit reports for the emulator: the same document and bureau always give the same report, with a
 * realistic spread of clean records, protests, debts, bounced cheques, high and low scores and "not calculated".
 * The output is typed by the interface's schemas, so it has every field and quirk the interface describes.
 */
import { cnpjCheckDigits as cnpjDigits, formatDocument } from '../../src/domain/documents/index.ts';
import {
  type Bureau,
  type CreditReportBureauA,
  type CreditReportBureauB,
  formatBrazilianDate,
  formatMoney,
  type RawCreditReport,
} from '../../src/domain/report/index.ts';
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

const FIRST_NAMES = [
  'MARIA',
  'JOSE',
  'ANA',
  'JOAO',
  'ANTONIO',
  'FRANCISCA',
  'CARLOS',
  'PAULO',
  'LUCIA',
  'MARCOS',
  'CONCEIÇÃO',
  'SEBASTIÃO',
];
const SURNAMES = [
  'DA SILVA',
  'DOS SANTOS',
  'OLIVEIRA',
  'SOUZA',
  'RODRIGUES',
  'FERREIRA',
  'ALVES',
  'PEREIRA',
  'GONÇALVES',
  'ARAÚJO',
];
const CITIES = [
  ['SAO PAULO', 'SP'],
  ['RIO DE JANEIRO', 'RJ'],
  ['BELO HORIZONTE', 'MG'],
  ['CURITIBA', 'PR'],
  ['RECIFE', 'PE'],
  ['PORTO ALEGRE', 'RS'],
  ['SALVADOR', 'BA'],
  ['GOIANIA', 'GO'],
] as const;
const STREETS = [
  'RUA DAS FLORES',
  'AV BRASIL',
  'RUA XV DE NOVEMBRO',
  'AV PAULISTA',
  'RUA SÃO JOÃO',
  'TRAVESSA DO COMÉRCIO',
];
const DISTRICTS = ['CENTRO', 'JARDIM AMÉRICA', 'VILA NOVA', 'BOA VISTA', 'SANTA CRUZ'];
const TRADES = [
  'COMERCIO DE ALIMENTOS',
  'TRANSPORTES',
  'CONSTRUTORA',
  'FARMACIA',
  'INDUSTRIA TEXTIL',
  'SERVICOS MEDICOS',
];
const CREDITORS = [
  'BANCO ALFA S.A.',
  'FINANCEIRA BETA',
  'LOJAS GAMA LTDA',
  'TELEFONICA DELTA',
  'CARTOES OMEGA',
  'ENERGIA SIGMA',
];
const DEBT_KINDS = ['FINANCIAMENTO', 'CARTAO DE CREDITO', 'EMPRESTIMO', 'CREDIARIO', 'CONTA DE CONSUMO'];
const BANKS = ['001', '033', '104', '237', '341', '756'];
const LEGAL_NATURES = [
  '206-2 - SOCIEDADE EMPRESARIA LIMITADA',
  '213-5 - EMPRESARIO INDIVIDUAL',
  '205-4 - SOCIEDADE ANONIMA FECHADA',
];

/** The financial picture of a document, from which both bureaus' reports are drawn. */
interface Profile {
  readonly score: number;
  readonly probability: 'percent' | 'number' | 'not calculated';
  readonly protests: number;
  readonly pendingDebts: number;
  readonly bouncedCheques: number;
  readonly stoppedCheques: number;
  /** The registration status has changed from the document's starting one (e.g. a company closed). */
  readonly statusChanged: boolean;
}

type Tier = 'clean' | 'some' | 'bad';

/** How many records of one kind a profile has: none when clean, else with a chance and a maximum per tier. */
function recordCount(
  random: SeededRandom,
  tier: Tier,
  odds: Readonly<Record<Exclude<Tier, 'clean'>, readonly [chance: number, most: number]>>,
): number {
  if (tier === 'clean') return 0;
  const [chance, most] = odds[tier];
  return random.chance(chance) ? random.integer(1, most) : 0;
}

function profileOf(random: SeededRandom): Profile {
  const roll = random.next();
  // About half clean, a third with some trouble, the rest in real difficulty.
  const tier: Tier = roll < 0.5 ? 'clean' : roll < 0.85 ? 'some' : 'bad';
  const score =
    tier === 'clean'
      ? random.integer(650, 980)
      : tier === 'some'
        ? random.integer(350, 700)
        : random.integer(0, 380);
  const probabilityRoll = random.next();
  return {
    score,
    probability: probabilityRoll < 0.08 ? 'not calculated' : probabilityRoll < 0.3 ? 'number' : 'percent',
    protests: recordCount(random, tier, { some: [0.35, 2], bad: [0.8, 6] }),
    pendingDebts: recordCount(random, tier, { some: [0.6, 3], bad: [0.9, 7] }),
    bouncedCheques: recordCount(random, tier, { some: [0.1, 4], bad: [0.45, 4] }),
    stoppedCheques: recordCount(random, tier, { some: [0.05, 3], bad: [0.25, 3] }),
    statusChanged: false,
  };
}

/**
 * One epoch of drift, about a month of a real portfolio: 29% of documents change something (measured over 2,000
 * documents), most of them by a score move. About 4%
 * get a new protest and 5% a new debt (each costing score), a fifth of those with protests or debts clear some,
 * 2% bounce more cheques, 6% lose 50 to 220 score points and 4% gain 50 to 180, and 1.5% change registration
 * status.
 */
function drift(profile: Profile, random: SeededRandom): Profile {
  let { score, protests, pendingDebts, bouncedCheques, statusChanged } = profile;
  if (random.chance(0.04)) {
    protests += random.integer(1, 2);
    score -= random.integer(30, 120);
  } else if (protests > 0 && random.chance(0.2)) protests = 0;
  if (random.chance(0.05)) {
    pendingDebts += random.integer(1, 2);
    score -= random.integer(30, 120);
  } else if (pendingDebts > 0 && random.chance(0.2)) pendingDebts -= random.integer(1, pendingDebts);
  if (random.chance(0.02)) bouncedCheques += random.integer(1, 2);
  const move = random.next();
  if (move < 0.06) score -= random.integer(50, 220);
  else if (move < 0.1) score += random.integer(50, 180);
  if (random.chance(0.015)) statusChanged = !statusChanged;
  return {
    ...profile,
    score: Math.min(1000, Math.max(0, score)),
    protests,
    pendingDebts,
    bouncedCheques,
    statusChanged,
  };
}

/** A document's profile at an epoch: its starting profile, drifted once per epoch. */
export function profileAt(document: string, epoch: number): Profile {
  if (!Number.isSafeInteger(epoch) || epoch < 0)
    throw new RangeError(`epoch must be a whole number ≥ 0, got ${epoch}`);
  let profile = profileOf(new SeededRandom(`profile:${document}`));
  for (let step = 1; step <= epoch; step++)
    profile = drift(profile, new SeededRandom(`drift:${document}:${step}`));
  return profile;
}

function pastDate(random: SeededRandom, maxDaysBack: number): string {
  const iso = new Date(REFERENCE_DAY - random.integer(1, maxDaysBack) * DAY).toISOString().slice(0, 10);
  return formatBrazilianDate(iso);
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

/** The other of two statuses when the profile says the status changed. */
function flip(status: string, pair: readonly [string, string], changed: boolean): string {
  return changed ? (status === pair[0] ? pair[1] : pair[0]) : status;
}

/**
 * Generates the report the emulated bureau returns for `document` (normalised, a valid CPF or CNPJ).
 */
export function generateCreditReport(
  document: string,
  bureau: Bureau,
  options: ReportGeneratorOptions = DEFAULT_REPORT_GENERATOR_OPTIONS,
): RawCreditReport {
  const isPerson = document.length === 11;
  // Identity is the same at both bureaus; what each bureau knows differs a little.
  const identity = new SeededRandom(`identity:${document}`);
  const profile = profileAt(document, options.epoch ?? 0);
  const random = new SeededRandom(`report:${bureau}:${document}`);
  // Each kind of record draws from its own stream, so a record that appears at a later epoch leaves the
  // earlier ones (dates, amounts) as they were.
  const records = (kind: string) => new SeededRandom(`report:${bureau}:${document}:${kind}`);
  const protestRandom = records('protests');
  const debtRandom = records('debts');
  const [city, state] = identity.pick(CITIES);
  const name = isPerson ? personName(identity) : `${identity.pick(TRADES)} ${identity.pick(SURNAMES)} LTDA`;
  const queryCode = 100_000_000 + (hashString(`${bureau}:${document}`) % 900_000_000);
  const envelope = (consultaCredito: object) => ({
    status: 'sucesso' as const,
    [options.serviceName]: options.docsUrl,
    dados: {
      consultaCredito,
      resumoRetorno: {
        cliente: random.chance(0.5) ? '' : 'CONTA EMULADA',
        codigoConsulta: queryCode,
        pdf: `https://relatorios.credit-screen.invalid/${bureau}/${queryCode}.pdf`,
      },
    },
  });

  const protests = Array.from({ length: profile.protests }, () => {
    const [protestCity, protestState] = protestRandom.pick(CITIES);
    const item = {
      data: pastDate(protestRandom, 1800),
      valor: formatMoney(amountCents(protestRandom), bureau),
      cartorio: `${protestRandom.integer(1, 10)}º TABELIONATO DE PROTESTO`,
      cidade: protestCity,
      tipoDocumento: protestRandom.pick(['DUPLICATA', 'NOTA PROMISSORIA', 'CHEQUE', 'CDA']),
      numeroDocumento: protestRandom.digits(8),
    };
    return bureau === 'b' ? { ...item, estado: protestState } : item;
  });
  const debts = Array.from({ length: profile.pendingDebts }, () => ({
    data: pastDate(debtRandom, 1500),
    valor: formatMoney(amountCents(debtRandom), bureau),
    informante: debtRandom.pick(CREDITORS),
    tipoPendencia: debtRandom.pick(DEBT_KINDS),
    // ASSUMPTION: bureau A's item shape is not specified; the emulator gives it bureau B's fields.
    situacao: debtRandom.pick(['ATIVA', 'EM NEGOCIACAO']),
    cidade: city,
  }));
  // ASSUMPTION: cheque items are not specified. Bureau A on a CPF gives no cheque totals, so those items carry
  // no value either; elsewhere they carry `valor`.
  const chequeValues = !(bureau === 'a' && isPerson);
  const cheque = (stream: SeededRandom) => ({
    data: pastDate(stream, 1200),
    banco: stream.pick(BANKS),
    agencia: stream.digits(4),
    ...(chequeValues ? { valor: formatMoney(amountCents(stream), bureau) } : {}),
  });
  const bouncedRandom = records('bounced-cheques');
  const stoppedRandom = records('stopped-cheques');
  const bounced = Array.from({ length: profile.bouncedCheques }, () => cheque(bouncedRandom));
  const stopped = Array.from({ length: profile.stoppedCheques }, () => cheque(stoppedRandom));

  const sum = (items: readonly { valor?: string }[]) =>
    items.reduce((cents, item) => cents + (item.valor ? Number(item.valor.replace(/\D/g, '')) : 0), 0);
  const entry = (items: readonly { valor?: string }[], withValue = true) =>
    withValue
      ? { quantidadeTotal: items.length, valorTotal: total(sum(items), bureau) }
      : { quantidadeTotal: items.length };
  const score = {
    score: String(profile.score),
    probabilidade: probabilityText(profile),
    mensagem: scoreMessage(profile),
  };
  const birthDate = pastDate(identity, 365 * 60 + 18 * 365);
  const street = `${identity.pick(STREETS)}, ${identity.integer(1, 3000)}`;
  const district = identity.pick(DISTRICTS);
  const postalCode = `${identity.digits(5)}-${identity.digits(3)}`;

  if (bureau === 'a') {
    const income = identity.integer(1200, 25000) * 100;
    const registration = isPerson
      ? {
          nome: name,
          cpf: formatDocument(document, 'cpf'),
          regiaoCPF: document.charAt(8),
          dataNascimento: birthDate,
          estadoCivil: String(identity.integer(1, 5)),
          grauInstrucao: String(identity.integer(1, 9)),
          nomeMae: personName(identity).replace(
            /^\S+/,
            identity.pick(['MARIA', 'ANA', 'LUCIA', 'FRANCISCA']),
          ),
          numeroRG: identity.chance(0.2) ? '' : identity.digits(9),
          tituloEleitor: identity.chance(0.3) ? '' : identity.digits(12),
          situacao: flip(identity.chance(0.95) ? '0' : '2', ['0', '2'], profile.statusChanged),
          sexo: identity.pick(['M', 'F']),
          numeroDependentes: String(identity.integer(0, 4)),
          endereco: street,
          bairro: district,
          cidade: city,
          uf: state,
          cep: postalCode,
          telefone: identity.chance(0.2)
            ? ''
            : `(${identity.integer(11, 99)}) 9${identity.digits(4)}-${identity.digits(4)}`,
          email: identity.chance(0.35)
            ? ''
            : `${name.split(' ')[0]?.toLowerCase()}${identity.integer(1, 99)}@example.com`,
          rendaPresumida: formatMoney(income, 'a'),
          textoRendaPresumida: `DE ${formatMoney(Math.floor(income / 100000) * 100000, 'a')} A ${formatMoney((Math.floor(income / 100000) + 1) * 100000, 'a')}`,
        }
      : {
          razaoSocial: name,
          nomeFantasia: identity.chance(0.3) ? '' : name.split(' ').slice(0, 2).join(' '),
          situacao: flip(
            identity.chance(0.9) ? 'ATIVA' : 'BAIXADA',
            ['ATIVA', 'BAIXADA'],
            profile.statusChanged,
          ),
          naturezaJuridica: identity.pick(LEGAL_NATURES),
          ramoAtividade: identity.pick(TRADES),
          cnpj: formatDocument(document, 'cnpj'),
          dataFundacao: pastDate(identity, 365 * 40),
          endereco: street,
          bairro: district,
          cidade: city,
          uf: state,
          cep: postalCode,
        };
    const report: CreditReportBureauA = envelope({
      resumoConsulta: {
        protestos: entry(protests),
        pendenciasFinanceiras: entry(debts),
        chequesSemFundo: entry(bounced, !isPerson),
        chequesSustados: entry(stopped, !isPerson),
      },
      dadosCadastrais: registration,
      score,
      protestos: protests,
      pendenciasFinanceiras: debts,
      chequesSemFundo: bounced,
      chequesSustados: stopped,
      historicoConsultas: Array.from({ length: random.integer(0, 5) }, () => ({
        data: pastDate(random, 365),
        empresa: random.pick(CREDITORS),
      })),
    }) as CreditReportBureauA;
    return report;
  }

  const participations = Array.from({ length: random.chance(0.35) ? random.integer(1, 3) : 0 }, () => {
    const base = `${random.digits(8)}0001`;
    const cnpj = `${base}${cnpjDigits(base)}`;
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
  const report: CreditReportBureauB = envelope({
    resumoConsulta: {
      protestos: entry(protests),
      pendenciasFinanceiras: entry(debts),
      chequesSemFundo: entry(bounced),
    },
    dadosCadastrais: isPerson
      ? {
          nome: name,
          cpf: formatDocument(document, 'cpf'),
          dataNascimento: birthDate,
          nomeMae: personName(identity),
        }
      : [],
    score,
    protestos: protests,
    pendenciasFinanceiras: debts,
    chequesSemFundo: bounced,
    participacaoEmEmpresas: participations,
  }) as CreditReportBureauB;
  return report;
}
