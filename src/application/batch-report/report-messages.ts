import type { BatchManifest } from '../../contract/index.ts';
import type { ReportLanguage } from '../../domain/batch-report/report-language.ts';
import type { DecisionValue } from '../../domain/decision/index.ts';
import type { ChangeKind } from '../../domain/monitoring/index.ts';
import type { ChargeState, ReasonedStatus, SummaryStatus } from '../../domain/summary/index.ts';

/** Every word of the page, per language. Status details stay as the summary writes them. */
export interface ReportMessages {
  readonly title: string;
  readonly batch: string;
  readonly file: string;
  readonly portfolio: string;
  readonly bureau: string;
  readonly started: string;
  readonly finished: string;
  readonly duration: string;
  readonly revision: string;
  readonly timeZoneNote: string;
  readonly manifestStatus: Readonly<Record<BatchManifest['status'], string>>;
  readonly keyFigures: {
    readonly rows: string;
    readonly withReport: string;
    readonly withRestriction: string;
    readonly lowScore: string;
  };
  readonly statusesTitle: string;
  readonly statusesIntro: string;
  readonly status: Readonly<Record<SummaryStatus, string>>;
  readonly statusMeaning: Readonly<Record<SummaryStatus, string>>;
  readonly count: string;
  readonly share: string;
  readonly total: string;
  readonly reasonsTitle: string;
  readonly reason: string;
  readonly examples: string;
  readonly row: string;
  readonly noReasons: string;
  readonly otherReasons: (rows: string) => string;
  readonly reasonedStatus: Readonly<Record<ReasonedStatus, string>>;
  readonly spendTitle: string;
  readonly spendIntro: string;
  readonly spend: {
    readonly queried: string;
    readonly reused: string;
    readonly duplicatesAvoided: string;
    readonly invalidAvoided: string;
    readonly notQueried: string;
  };
  readonly charge: Readonly<Record<ChargeState, string>>;
  readonly chargeMeaning: Readonly<Record<ChargeState, string>>;
  readonly chargesTitle: string;
  readonly chargesUnrecorded: string;
  /** The batch's quote and what its answered queries cost at the quoted price. */
  readonly quote: (toBuy: string, price: string, cost: string, spent: string) => string;
  readonly scoreTitle: string;
  readonly scoreIntro: string;
  readonly scoreBand: string;
  readonly noScore: string;
  readonly probabilityTitle: string;
  readonly probabilityIntro: string;
  readonly probabilityBand: string;
  readonly noProbability: string;
  readonly riskTitle: string;
  readonly riskIntro: string;
  readonly person: string;
  readonly company: string;
  readonly all: string;
  readonly documents: string;
  readonly protests: string;
  readonly pendingDebts: string;
  readonly bouncedCheques: string;
  readonly withIt: string;
  readonly amount: string;
  readonly riskiestTitle: string;
  readonly lowestScoresTitle: string;
  readonly largestDebtsTitle: string;
  readonly document: string;
  readonly name: string;
  readonly score: string;
  readonly probability: string;
  readonly chequesShort: string;
  readonly statusColumn: string;
  readonly amountUnknown: (documents: string) => string;
  readonly notShown: (hidden: string, total: string) => string;
  readonly noCustomers: string;
  readonly changesTitle: string;
  readonly changesIntro: (documents: string) => string;
  readonly change: Readonly<Record<ChangeKind, string>>;
  readonly changeKind: string;
  readonly before: string;
  readonly after: string;
  readonly delta: string;
  readonly mostSevereTitle: string;
  readonly noChanges: string;
  readonly failureTitle: string;
  readonly emptyBatch: string;
  readonly noReports: string;
  readonly chartOf: (title: string) => string;
  readonly generated: (when: string) => string;
  readonly filesNote: string;
  readonly decisions: {
    readonly title: string;
    readonly intro: (policy: string, sha256: string) => string;
    readonly value: Readonly<Record<DecisionValue, string>>;
    /** Rows the policy did not decide: no report (invalid, failed, not queried…). */
    readonly undecided: string;
    readonly reasonsTitle: string;
    readonly reason: string;
    readonly rows: string;
    readonly noReasons: string;
    readonly declinedTitle: string;
    readonly reviewTitle: string;
    readonly reasons: string;
    readonly creditLimit: string;
  };
}

const PORTUGUESE: ReportMessages = {
  title: 'Relatório do lote',
  batch: 'Lote',
  file: 'Arquivo',
  portfolio: 'Carteira',
  bureau: 'Birô',
  started: 'Início',
  finished: 'Fim',
  duration: 'Duração',
  revision: 'Revisão',
  timeZoneNote: 'Horários de Brasília.',
  manifestStatus: {
    completed: 'Concluído',
    token_rejected: 'Token recusado pelo birô',
    file_rejected: 'Arquivo recusado',
    cancelled: 'Cancelado',
    budget_exhausted: 'Limite de gastos atingido',
    rejected: 'Não aprovado',
  },
  keyFigures: {
    rows: 'linhas no arquivo',
    withReport: 'documentos com relatório',
    withRestriction: 'com protesto, pendência ou cheque sem fundo',
    lowScore: 'com score abaixo de 400',
  },
  statusesTitle: 'Situação das linhas',
  statusesIntro: 'Cada linha do arquivo termina em uma situação, com o motivo no summary.csv.',
  status: {
    screened: 'Consultado',
    cached: 'Relatório reaproveitado',
    duplicate: 'Duplicado',
    invalid_document: 'Documento inválido',
    failed: 'Falhou',
    cancelled: 'Cancelado',
    not_queried: 'Não consultado',
  },
  statusMeaning: {
    screened: 'consultado no birô neste lote',
    cached: 'relatório recente reutilizado, sem nova cobrança',
    duplicate: 'repete um documento de outra linha; não consultado de novo',
    invalid_document: 'CPF/CNPJ inválido; não consultado',
    failed: 'o birô não respondeu ou recusou a consulta',
    cancelled: 'lote cancelado antes da consulta',
    not_queried: 'não consultado: limite de gastos atingido ou lote não aprovado',
  },
  count: 'Quantidade',
  share: 'Participação',
  total: 'Total',
  reasonsTitle: 'Motivos',
  reason: 'Motivo',
  examples: 'Exemplos (linha: valor)',
  row: 'Linha',
  noReasons: 'Nenhuma linha inválida, com falha ou cancelada.',
  otherReasons: (rows) => `Outros motivos: ${rows} linhas (veja o summary.csv).`,
  reasonedStatus: { invalid_document: 'Inválido', failed: 'Falhou', cancelled: 'Cancelado' },
  spendTitle: 'Consultas e custo',
  spendIntro: 'Cada documento consultado no birô é uma consulta cobrada; os demais não custaram nada.',
  spend: {
    queried: 'consultas ao birô',
    reused: 'relatórios reaproveitados',
    duplicatesAvoided: 'duplicados não consultados',
    invalidAvoided: 'inválidos não consultados',
    notQueried: 'não consultados (falha, cancelamento, limite de gastos ou não aprovado)',
  },
  quote: (toBuy, price, cost, spent) =>
    `Cotação antes da compra: ${toBuy} consultas a ${price} = ${cost}. Gasto com as consultas respondidas: ${spent}.`,
  charge: { charged: 'Cobradas', not_charged: 'Não cobradas', charge_unknown: 'Cobrança incerta' },
  chargeMeaning: {
    charged: 'o birô cobrou a consulta',
    not_charged: 'nenhuma cobrança',
    charge_unknown: 'a consulta pode ter sido cobrada (resposta perdida)',
  },
  chargesTitle: 'Cobrança por linha',
  chargesUnrecorded: 'Este lote não registra a cobrança de cada linha.',
  scoreTitle: 'Distribuição de score',
  scoreIntro: 'Documentos com relatório, por faixa de score (0 a 1000; quanto menor, maior o risco).',
  scoreBand: 'Faixa de score',
  noScore: 'Sem score',
  probabilityTitle: 'Probabilidade de inadimplência',
  probabilityIntro: 'Documentos com relatório, por faixa da probabilidade informada pelo birô.',
  probabilityBand: 'Faixa',
  noProbability: 'Não calculada',
  riskTitle: 'Composição do risco',
  riskIntro: 'Parcela dos documentos com relatório que têm cada restrição, e os valores somados.',
  person: 'Pessoa física (CPF)',
  company: 'Pessoa jurídica (CNPJ)',
  all: 'Todos',
  documents: 'Documentos',
  protests: 'Protestos',
  pendingDebts: 'Pendências financeiras',
  bouncedCheques: 'Cheques sem fundo',
  withIt: 'com',
  amount: 'valor',
  riskiestTitle: 'Clientes para olhar primeiro',
  lowestScoresTitle: 'Menores scores',
  largestDebtsTitle: 'Maiores valores de protestos e pendências',
  document: 'Documento',
  name: 'Nome',
  score: 'Score',
  probability: 'Prob. inadimpl.',
  chequesShort: 'Cheques s/ fundo',
  statusColumn: 'Situação',
  amountUnknown: (documents) => `valor não informado para ${documents}`,
  notShown: (hidden, total) =>
    `Mais ${hidden} de ${total} não exibidos; a lista completa está no summary.csv.`,
  noCustomers: 'Nenhum documento nesta lista.',
  changesTitle: 'Mudanças desde a consulta anterior',
  changesIntro: (documents) => `${documents} documentos mudaram desde o relatório anterior (changes.csv).`,
  change: {
    decision_worsened: 'Decisão piorou',
    decision_improved: 'Decisão melhorou',
    new_protest: 'Novo protesto',
    protest_cleared: 'Protesto baixado',
    new_pending_debt: 'Nova pendência financeira',
    pending_debt_cleared: 'Pendência quitada',
    bounced_cheques_up: 'Mais cheques sem fundo',
    score_drop: 'Queda de score',
    score_rise: 'Alta de score',
    status_change: 'Mudança de situação cadastral',
    first_screening: 'Primeira consulta',
  },
  changeKind: 'Mudança',
  before: 'Antes',
  after: 'Depois',
  delta: 'Variação',
  mostSevereTitle: 'Mudanças mais graves primeiro',
  noChanges: 'Nenhuma mudança.',
  failureTitle: 'O lote não terminou normalmente',
  emptyBatch: 'Nenhuma linha para mostrar.',
  noReports: 'Nenhum documento com relatório neste lote.',
  chartOf: (title) => `Gráfico: ${title}. Os mesmos números estão na tabela.`,
  generated: (when) => `Gerado em ${when} a partir do summary.csv e do manifest.json deste lote.`,
  filesNote: 'Arquivos do lote',
  decisions: {
    title: 'Decisões da política de crédito',
    intro: (policy, sha256) =>
      `Cada documento com relatório foi decidido pela política ${policy} (SHA-256 ${sha256.slice(0, 12)}…); as decisões e os motivos estão no summary.csv.`,
    value: { approve: 'Aprovar', review: 'Analisar', decline: 'Recusar' },
    undecided: 'Sem decisão',
    reasonsTitle: 'Motivos mais frequentes',
    reason: 'Motivo',
    rows: 'Linhas',
    noReasons: 'A política não deu motivos.',
    declinedTitle: 'Recusados',
    reviewTitle: 'Para análise',
    reasons: 'Motivos',
    creditLimit: 'Limite',
  },
};

const ENGLISH: ReportMessages = {
  title: 'Batch report',
  batch: 'Batch',
  file: 'File',
  portfolio: 'Portfolio',
  bureau: 'Bureau',
  started: 'Started',
  finished: 'Finished',
  duration: 'Duration',
  revision: 'Revision',
  timeZoneNote: 'Times in Brasília time.',
  manifestStatus: {
    completed: 'Completed',
    token_rejected: 'Token rejected by the bureau',
    file_rejected: 'File rejected',
    cancelled: 'Cancelled',
    budget_exhausted: 'Spending cap reached',
    rejected: 'Not approved',
  },
  keyFigures: {
    rows: 'rows in the file',
    withReport: 'documents with a report',
    withRestriction: 'with a protest, pending debt or bounced cheque',
    lowScore: 'with a score below 400',
  },
  statusesTitle: 'Row statuses',
  statusesIntro: 'Every row of the file ends in one status, with its reason in summary.csv.',
  status: {
    screened: 'Screened',
    cached: 'Report reused',
    duplicate: 'Duplicate',
    invalid_document: 'Invalid document',
    failed: 'Failed',
    cancelled: 'Cancelled',
    not_queried: 'Not queried',
  },
  statusMeaning: {
    screened: 'queried at the bureau in this batch',
    cached: 'a recent report reused, not paid again',
    duplicate: 'repeats another row’s document; not queried again',
    invalid_document: 'not a valid CPF/CNPJ; not queried',
    failed: 'the bureau did not answer or refused the query',
    cancelled: 'the batch was cancelled before the query',
    not_queried: 'not queried: a spending cap was reached or the batch was not approved',
  },
  count: 'Count',
  share: 'Share',
  total: 'Total',
  reasonsTitle: 'Reasons',
  reason: 'Reason',
  examples: 'Examples (row: value)',
  row: 'Row',
  noReasons: 'No invalid, failed or cancelled rows.',
  otherReasons: (rows) => `Other reasons: ${rows} rows (see summary.csv).`,
  reasonedStatus: { invalid_document: 'Invalid', failed: 'Failed', cancelled: 'Cancelled' },
  spendTitle: 'Queries and spend',
  spendIntro: 'Each document queried at the bureau is one paid query; the others cost nothing.',
  spend: {
    queried: 'bureau queries',
    reused: 'reports reused',
    duplicatesAvoided: 'duplicates not queried',
    invalidAvoided: 'invalid rows not queried',
    notQueried: 'not queried (failed, cancelled, spending cap or not approved)',
  },
  quote: (toBuy, price, cost, spent) =>
    `Quote before buying: ${toBuy} queries at ${price} = ${cost}. Spent on the queries answered: ${spent}.`,
  charge: { charged: 'Charged', not_charged: 'Not charged', charge_unknown: 'Charge unknown' },
  chargeMeaning: {
    charged: 'the bureau charged the query',
    not_charged: 'no charge',
    charge_unknown: 'the query may have been charged (answer lost)',
  },
  chargesTitle: 'Charge per row',
  chargesUnrecorded: 'This batch does not record each row’s charge.',
  scoreTitle: 'Score distribution',
  scoreIntro: 'Documents with a report, by score band (0 to 1000; lower is riskier).',
  scoreBand: 'Score band',
  noScore: 'No score',
  probabilityTitle: 'Default probability',
  probabilityIntro: 'Documents with a report, by the default probability the bureau gives.',
  probabilityBand: 'Band',
  noProbability: 'Not calculated',
  riskTitle: 'Risk mix',
  riskIntro: 'Share of documents with a report that have each restriction, and the amounts added up.',
  person: 'Person (CPF)',
  company: 'Company (CNPJ)',
  all: 'All',
  documents: 'Documents',
  protests: 'Protests',
  pendingDebts: 'Pending debts',
  bouncedCheques: 'Bounced cheques',
  withIt: 'with',
  amount: 'amount',
  riskiestTitle: 'Customers to look at first',
  lowestScoresTitle: 'Lowest scores',
  largestDebtsTitle: 'Largest protests and pending debts',
  document: 'Document',
  name: 'Name',
  score: 'Score',
  probability: 'Default prob.',
  chequesShort: 'Bounced cheques',
  statusColumn: 'Status',
  amountUnknown: (documents) => `amount not given for ${documents}`,
  notShown: (hidden, total) => `${hidden} more of ${total} not shown; summary.csv has the full list.`,
  noCustomers: 'No document in this list.',
  changesTitle: 'Changes since the previous screening',
  changesIntro: (documents) => `${documents} documents changed since their previous report (changes.csv).`,
  change: {
    decision_worsened: 'Decision worsened',
    decision_improved: 'Decision improved',
    new_protest: 'New protest',
    protest_cleared: 'Protest cleared',
    new_pending_debt: 'New pending debt',
    pending_debt_cleared: 'Pending debt cleared',
    bounced_cheques_up: 'More bounced cheques',
    score_drop: 'Score drop',
    score_rise: 'Score rise',
    status_change: 'Registration status change',
    first_screening: 'First screening',
  },
  changeKind: 'Change',
  before: 'Before',
  after: 'After',
  delta: 'Delta',
  mostSevereTitle: 'Most severe changes first',
  noChanges: 'No changes.',
  failureTitle: 'The batch did not finish normally',
  emptyBatch: 'No rows to show.',
  noReports: 'No document has a report in this batch.',
  chartOf: (title) => `Chart: ${title}. The table has the same figures.`,
  generated: (when) => `Generated ${when} from this batch’s summary.csv and manifest.json.`,
  filesNote: 'Batch files',
  decisions: {
    title: 'Credit policy decisions',
    intro: (policy, sha256) =>
      `Every document with a report was decided by the policy ${policy} (SHA-256 ${sha256.slice(0, 12)}…); summary.csv has each decision and its reasons.`,
    value: { approve: 'Approve', review: 'Review', decline: 'Decline' },
    undecided: 'Not decided',
    reasonsTitle: 'Most frequent reasons',
    reason: 'Reason',
    rows: 'Rows',
    noReasons: 'The policy gave no reasons.',
    declinedTitle: 'Declined',
    reviewTitle: 'To review',
    reasons: 'Reasons',
    creditLimit: 'Limit',
  },
};

export const REPORT_MESSAGES: Readonly<Record<ReportLanguage, ReportMessages>> = {
  'pt-BR': PORTUGUESE,
  en: ENGLISH,
};
