import type { z } from 'zod';
import { type DocumentType, parseDocument } from '../documents/index.ts';
import {
  type Parsed,
  parseBrazilianDate,
  parseMoneyCents,
  parsePercentage,
  parseWholeNumber,
} from './brazilian-formats.ts';
import type {
  ChequeItem,
  CompanyParticipation,
  NormalisedReport,
  PendingDebtItem,
  ProtestItem,
  QueryHistoryItem,
  Score,
  Section,
  Subject,
} from './normalised-report.ts';
import {
  type Bureau,
  companyBureauASchema,
  companyParticipationSchema,
  emptyRegistration,
  pendingDebtBureauBSchema,
  personBureauASchema,
  personBureauBSchema,
  protestBureauASchema,
  protestBureauBSchema,
  queryHistoryItemSchema,
  queryResumeSchema,
  queryReturnSchema,
  SUCCESS_STATUS,
  scoreSchema,
  unspecifiedItemSchema,
} from './raw-credit-report.ts';

/** The response is not a successful credit-report envelope: there is nothing to normalise. */
export class MalformedReportError extends Error {
  override readonly name = 'MalformedReportError';
}

export interface NormaliseContext {
  readonly bureau: Bureau;
  /** The document that was queried (normalised). */
  readonly document: string;
  /** When the response was received (ISO 8601). */
  readonly fetchedAt: string;
}

/** A report whose response does not name its document and whose document nobody told: only its type is known. */
export type UnidentifiedReport = Omit<NormalisedReport, 'document'> & { readonly document: null };

/** What the mapping needs: the document when known, and its type (always known by then). */
interface SubjectContext {
  readonly bureau: Bureau;
  readonly document: string | null;
  readonly documentType: DocumentType;
  readonly fetchedAt: string;
}

type RawObject = Readonly<Record<string, unknown>>;
const MAX_SCHEMA_WARNINGS_PER_SECTION = 10;

function isObject(value: unknown): value is RawObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads values leniently and records what it could not read. */
class Reader {
  readonly warnings: string[] = [];

  /** A text field: trimmed, empty → null; a number is written as text; anything else is a warning. */
  text(object: RawObject, key: string, where: string): string | null {
    const value = object[key];
    if (value === undefined || value === null) return null;
    if (typeof value === 'number') return String(value);
    if (typeof value !== 'string') {
      this.warnings.push(`${where}.${key}: expected text, got ${JSON.stringify(value)}`);
      return null;
    }
    const text = value.trim();
    return text === '' ? null : text;
  }

  /** The `data` and `valor` that every kind of item has. */
  dateAndAmount(
    item: RawObject,
    where: string,
    bureau: Bureau,
  ): { date: string | null; amountCents: number | null } {
    return {
      date: this.take(parseBrazilianDate(item.data), `${where}.data`),
      amountCents: this.take(parseMoneyCents(item.valor, bureau), `${where}.valor`),
    };
  }

  take<T>(parsed: Parsed<T>, where: string): T | null {
    if (parsed.problem !== undefined) {
      this.warnings.push(`${where}: ${parsed.problem}`);
      return null;
    }
    return parsed.value;
  }

  /** Checks a section against the interface's shape; mismatches become warnings, never failures. */
  check(schema: z.ZodType, value: unknown, where: string): void {
    const result = schema.safeParse(value);
    if (result.success) return;
    for (const issue of result.error.issues.slice(0, MAX_SCHEMA_WARNINGS_PER_SECTION)) {
      const path = [where, ...issue.path.map(String)].join('.');
      this.warnings.push(`${path}: ${issue.message}`);
    }
  }

  /** An array section: missing → warning and empty; each item read by `read` when it is an object. */
  items<Item>(
    container: RawObject,
    key: string,
    itemSchema: z.ZodType,
    read: (item: RawObject, where: string) => Item,
  ): Item[] {
    const value = container[key];
    if (value === undefined) {
      this.warnings.push(`consultaCredito.${key}: section missing`);
      return [];
    }
    if (!Array.isArray(value)) {
      this.warnings.push(`consultaCredito.${key}: expected a list, got ${typeof value}`);
      return [];
    }
    const items: Item[] = [];
    value.forEach((item, index) => {
      const where = `${key}[${index}]`;
      this.check(itemSchema, item, where);
      if (isObject(item)) items.push(read(item, where));
    });
    return items;
  }
}

function readAddress(reader: Reader, raw: RawObject, where: string): Subject['address'] {
  const address = {
    street: reader.text(raw, 'endereco', where),
    district: reader.text(raw, 'bairro', where),
    city: reader.text(raw, 'cidade', where),
    state: reader.text(raw, 'uf', where),
    postalCode: reader.text(raw, 'cep', where),
  };
  return Object.values(address).every((value) => value === null) ? null : address;
}

const MAPPED_SUBJECT_FIELDS = new Set([
  'nome',
  'razaoSocial',
  'nomeFantasia',
  'cpf',
  'cnpj',
  'dataNascimento',
  'dataFundacao',
  'situacao',
  'nomeMae',
  'endereco',
  'bairro',
  'cidade',
  'uf',
  'cep',
  'telefone',
  'email',
  'rendaPresumida',
  'textoRendaPresumida',
  'naturezaJuridica',
  'ramoAtividade',
]);

function readSubject(reader: Reader, raw: unknown, context: SubjectContext): Subject | null {
  const type = context.documentType;
  const where = 'dadosCadastrais';
  const schema =
    context.bureau === 'a'
      ? type === 'cpf'
        ? personBureauASchema
        : companyBureauASchema
      : type === 'cpf'
        ? personBureauBSchema
        : emptyRegistration;
  if (raw === undefined) {
    reader.warnings.push(`consultaCredito.${where}: section missing`);
    return null;
  }
  // `[]` means the bureau has no registration data: expected for bureau B companies, allowed for anyone.
  if (Array.isArray(raw) && raw.length === 0) return null;
  reader.check(schema, raw, where);
  if (!isObject(raw)) return null;

  const registered = reader.text(raw, type, where);
  if (registered !== null && context.document !== null) {
    const check = parseDocument(registered);
    if (!check.valid || check.document !== context.document) {
      reader.warnings.push(`${where}.${type}: ${JSON.stringify(registered)} is not the queried document`);
    }
  }
  const otherFields: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!MAPPED_SUBJECT_FIELDS.has(key) && typeof value === 'string' && value.trim() !== '')
      otherFields[key] = value;
  }
  return {
    kind: type === 'cpf' ? 'person' : 'company',
    name: reader.text(raw, type === 'cpf' ? 'nome' : 'razaoSocial', where),
    tradeName: reader.text(raw, 'nomeFantasia', where),
    birthDate: reader.take(parseBrazilianDate(raw.dataNascimento), `${where}.dataNascimento`),
    foundationDate: reader.take(parseBrazilianDate(raw.dataFundacao), `${where}.dataFundacao`),
    status: reader.text(raw, 'situacao', where),
    motherName: reader.text(raw, 'nomeMae', where),
    address: readAddress(reader, raw, where),
    phone: reader.text(raw, 'telefone', where),
    email: reader.text(raw, 'email', where),
    presumedIncomeCents: reader.take(
      parseMoneyCents(raw.rendaPresumida, context.bureau),
      `${where}.rendaPresumida`,
    ),
    presumedIncomeText: reader.text(raw, 'textoRendaPresumida', where),
    legalNature: reader.text(raw, 'naturezaJuridica', where),
    activity: reader.text(raw, 'ramoAtividade', where),
    otherFields,
  };
}

/**
 * The score. The default probability is read as a percentage in every form the bureaus use: `"12,5%"` → 12.5, a
 * bare number-like text `"12,5"` → 12.5 (it is a percentage too, never a 0–1 fraction), and a text meaning not
 * calculated (`"Não calculado"`, `"N/A"`, `"-"`, empty) → null. The score value is a whole number or null.
 */
function readScore(reader: Reader, raw: unknown): Score | null {
  if (raw === undefined) {
    reader.warnings.push('consultaCredito.score: section missing');
    return null;
  }
  reader.check(scoreSchema, raw, 'score');
  if (!isObject(raw)) return null;
  return {
    value: reader.take(parseWholeNumber(raw.score), 'score.score'),
    probabilityPct: reader.take(parsePercentage(raw.probabilidade), 'score.probabilidade'),
    message: reader.text(raw, 'mensagem', 'score'),
    raw: { score: raw.score, probabilidade: raw.probabilidade, mensagem: raw.mensagem },
  };
}

function readSection<Item>(
  reader: Reader,
  summary: RawObject | null,
  key: string,
  items: Item[],
  bureau: Bureau,
): Section<Item> {
  const entry = summary?.[key];
  let count = items.length;
  let totalCents: number | null = null;
  if (isObject(entry)) {
    const total = entry.quantidadeTotal;
    if (typeof total === 'number' && Number.isSafeInteger(total) && total >= 0) count = total;
    else
      reader.warnings.push(
        `resumoConsulta.${key}.quantidadeTotal: ${JSON.stringify(total)} is not a count; using the ${items.length} items listed`,
      );
    // No valorTotal (bureau A cheques on a CPF) means the bureau does not say: unknown, not zero.
    totalCents = reader.take(parseMoneyCents(entry.valorTotal, bureau), `resumoConsulta.${key}.valorTotal`);
  } else {
    reader.warnings.push(`resumoConsulta.${key}: missing; using the ${items.length} items listed`);
  }
  return { count, totalCents, items };
}

function readCheque(reader: Reader, item: RawObject, where: string, bureau: Bureau): ChequeItem {
  return { ...reader.dateAndAmount(item, where, bureau), raw: item };
}

/**
 * Maps a bureau A or B credit report, for a person or a company, to one {@link NormalisedReport}.
 *
 * Lenient by design: a missing section, an unexpected type or an unreadable value becomes a warning and a null,
 * and the raw response is meant to be archived beside the result.
 * @throws MalformedReportError only when the envelope itself is not a successful report.
 */
export function normaliseCreditReport(response: unknown, context: NormaliseContext): NormalisedReport {
  const documentType: DocumentType = context.document.length === 11 ? 'cpf' : 'cnpj';
  return normalise(dataOf(response), { ...context, documentType }, []) as NormalisedReport;
}

const UNKNOWN_CNPJ_WARNING =
  'document: the response names no document (bureau B gives no registration data for a company), so only its ' +
  'type is known: cnpj';

/**
 * Maps a response that does not name its document, when nobody says which document was queried (a saved bureau
 * response, outside the pipeline). The type is then read from the shape: bureau B answers a company with an empty
 * `dadosCadastrais`, so that is a CNPJ, with a null document and a warning saying so. Any other shape does not
 * tell the type, and null is returned rather than a guess.
 * @throws MalformedReportError when the envelope itself is not a successful report.
 */
export function normaliseUnidentifiedReport(
  response: unknown,
  context: Omit<NormaliseContext, 'document'>,
): UnidentifiedReport | null {
  const data = dataOf(response);
  const credit = isObject(data.consultaCredito) ? data.consultaCredito : {};
  const registration = credit.dadosCadastrais;
  if (context.bureau !== 'b' || !Array.isArray(registration) || registration.length !== 0) return null;
  return normalise(data, { ...context, document: null, documentType: 'cnpj' }, [
    UNKNOWN_CNPJ_WARNING,
  ]) as UnidentifiedReport;
}

/** The `dados` of a successful envelope. */
function dataOf(response: unknown): RawObject {
  if (!isObject(response)) throw new MalformedReportError('the response is not a JSON object');
  if (response.status !== SUCCESS_STATUS) {
    throw new MalformedReportError(
      `the response status is ${JSON.stringify(response.status)}, not "sucesso"`,
    );
  }
  const data = response.dados;
  if (!isObject(data)) throw new MalformedReportError('the response has no "dados" object');
  return data;
}

function normalise(
  data: RawObject,
  context: SubjectContext,
  warnings: readonly string[],
): NormalisedReport | UnidentifiedReport {
  const reader = new Reader();
  const { bureau, documentType } = context;
  const credit = isObject(data.consultaCredito) ? data.consultaCredito : {};
  if (!isObject(data.consultaCredito)) reader.warnings.push('dados.consultaCredito: missing');

  const returned = isObject(data.resumoRetorno) ? data.resumoRetorno : {};
  reader.check(queryReturnSchema, data.resumoRetorno, 'resumoRetorno');
  const queryCode = typeof returned.codigoConsulta === 'number' ? returned.codigoConsulta : null;

  const summary = isObject(credit.resumoConsulta) ? credit.resumoConsulta : null;
  reader.check(queryResumeSchema, credit.resumoConsulta, 'resumoConsulta');

  // Read in this order on purpose: it is the order of the warnings.
  const items = readSharedItems(reader, credit, bureau);
  const ownSections =
    bureau === 'a'
      ? { ...readBureauASections(reader, credit, summary), companyParticipations: null }
      : {
          stoppedCheques: null,
          queryHistory: null,
          companyParticipations: readParticipations(reader, credit),
        };
  return {
    schemaVersion: 1 as const,
    document: context.document,
    documentType,
    bureau,
    queryCode,
    pdfUrl: reader.text(returned, 'pdf', 'resumoRetorno'),
    clientReference: reader.text(returned, 'cliente', 'resumoRetorno'),
    fetchedAt: context.fetchedAt,
    subject: readSubject(reader, credit.dadosCadastrais, context),
    score: readScore(reader, credit.score),
    protests: readSection(reader, summary, 'protestos', items.protests, bureau),
    pendingDebts: readSection(reader, summary, 'pendenciasFinanceiras', items.pendingDebts, bureau),
    bouncedCheques: readSection(reader, summary, 'chequesSemFundo', items.bounced, bureau),
    ...ownSections,
    warnings: [...reader.warnings, ...warnings],
  };
}

/** The lists both bureaus send: protests, pending debts and bounced cheques (each in its bureau's shape). */
function readSharedItems(reader: Reader, credit: RawObject, bureau: Bureau) {
  const protests = reader.items(
    credit,
    'protestos',
    bureau === 'a' ? protestBureauASchema : protestBureauBSchema,
    (item, where): ProtestItem => ({
      ...reader.dateAndAmount(item, where, bureau),
      notary: reader.text(item, 'cartorio', where),
      city: reader.text(item, 'cidade', where),
      state: reader.text(item, 'estado', where),
      documentKind: reader.text(item, 'tipoDocumento', where),
      documentNumber: reader.text(item, 'numeroDocumento', where),
    }),
  );
  const pendingDebts = reader.items(
    credit,
    'pendenciasFinanceiras',
    bureau === 'a' ? unspecifiedItemSchema : pendingDebtBureauBSchema,
    (item, where): PendingDebtItem => ({
      ...reader.dateAndAmount(item, where, bureau),
      creditor: reader.text(item, 'informante', where),
      kind: reader.text(item, 'tipoPendencia', where),
      status: reader.text(item, 'situacao', where),
      city: reader.text(item, 'cidade', where),
      raw: item,
    }),
  );
  const bounced = reader.items(credit, 'chequesSemFundo', unspecifiedItemSchema, (item, where) =>
    readCheque(reader, item, where, bureau),
  );
  return { protests, pendingDebts, bounced };
}

/** What only bureau A sends: stopped cheques and the history of queries about the subject. */
function readBureauASections(
  reader: Reader,
  credit: RawObject,
  summary: RawObject | null,
): { stoppedCheques: Section<ChequeItem>; queryHistory: QueryHistoryItem[] } {
  const stopped = reader.items(credit, 'chequesSustados', unspecifiedItemSchema, (item, where) =>
    readCheque(reader, item, where, 'a'),
  );
  const stoppedCheques = readSection(reader, summary, 'chequesSustados', stopped, 'a');
  const queryHistory = reader.items(credit, 'historicoConsultas', queryHistoryItemSchema, (item, where) => ({
    date: reader.take(parseBrazilianDate(item.data), `${where}.data`),
    company: reader.text(item, 'empresa', where),
  }));
  return { stoppedCheques, queryHistory };
}

/** What only bureau B sends: the subject's shares in companies. */
function readParticipations(reader: Reader, credit: RawObject): CompanyParticipation[] {
  return reader.items(credit, 'participacaoEmEmpresas', companyParticipationSchema, (item, where) => ({
    company: reader.text(item, 'empresa', where),
    cnpj: reader.text(item, 'cnpj', where),
    sharePct: reader.take(
      parsePercentage(item.participacaoEmPorcentagem),
      `${where}.participacaoEmPorcentagem`,
    ),
    state: reader.text(item, 'uf', where),
    entryDate: reader.take(parseBrazilianDate(item.dataEntrada), `${where}.dataEntrada`),
  }));
}
