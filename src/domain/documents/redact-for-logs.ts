import { hasValidCnpjCheckDigits } from './check-digits.ts';
import { maskDocument } from './format-document.ts';

/** What replaces a personal value in a log line. */
export const REDACTED = '[redacted]';

/**
 * Field names whose values identify or describe a person (LGPD), in the bureau's words and in the normalised
 * report's, compared folded (lowercase, letters and digits only). Company names are included: a sole trader's
 * company name is the owner's name. The whole registration section and the customer's own columns are too. A bare
 * `name` is not: errors and portfolios have one; the report's person is under `subject`.
 */
const PERSONAL_FIELDS = new Set(
  [
    'nome',
    'nomeMae',
    'motherName',
    'razaoSocial',
    'nomeFantasia',
    'tradeName',
    'dataNascimento',
    'birthDate',
    'endereco',
    'address',
    'street',
    'bairro',
    'district',
    'cep',
    'postalCode',
    'telefone',
    'phone',
    'celular',
    'email',
    'rendaPresumida',
    'textoRendaPresumida',
    'presumedIncomeCents',
    'presumedIncomeText',
    'numeroRG',
    'tituloEleitor',
    'estadoCivil',
    'sexo',
    'dadosCadastrais',
    'subject',
    'otherFields',
    'passThrough',
  ].map(fold),
);

function fold(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

// Written forms: 519.540.222-12, 11.222.333/0001-81, 12.ABC.345/01DE-35 (any letter case).
const PUNCTUATED_CPF = /(?<![0-9A-Za-z])\d{3}\.\d{3}\.\d{3}-\d{2}(?![0-9A-Za-z])/g;
const PUNCTUATED_CNPJ =
  /(?<![0-9A-Za-z])[0-9A-Za-z]{2}\.[0-9A-Za-z]{3}\.[0-9A-Za-z]{3}\/[0-9A-Za-z]{4}-\d{2}(?![0-9A-Za-z])/g;
// Bare numbers of a document's length, valid or not (a mistyped CPF is still somebody's), inside any text: URLs,
// keys, messages. Numbers of other lengths are left alone: epoch milliseconds have 13 digits.
const BARE_DIGITS = /(?<!\d)(?:\d{14}|\d{11})(?!\d)/g;
// A bare alphanumeric CNPJ: masked when its check digits pass, so ordinary 14-character words are not.
const BARE_ALPHANUMERIC_CNPJ = /(?<![0-9A-Za-z])[0-9A-Za-z]{12}\d{2}(?![0-9A-Za-z])/g;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
// A text that names a personal field (`dadosCadastrais.nomeMae: …`): every value quoted in it is personal too.
const PERSONAL_FIELD_MENTION = new RegExp(
  `(?<![A-Za-z])(?:${[...PERSONAL_FIELDS].join('|')})(?![A-Za-z])`,
  'i',
);
const QUOTED = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g;
const DATE = /(?<!\d)\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}(?!\d)/g;
const MASKED_DOCUMENT = /^["']\*{2,3}\.[^"']*\*\*["']$/;

function maskWritten(text: string): string {
  return maskDocument(text.replace(/[./-]/g, '').toUpperCase());
}

/**
 * Masks every CPF- or CNPJ-shaped value in a text (punctuated or bare, numeric or alphanumeric) the way
 * {@link maskDocument} does, and hides e-mail addresses. A text that names a personal field (a normalisation
 * warning such as `dadosCadastrais.dataNascimento: date "31/02/1990" does not exist`) also loses every quoted value
 * and date in it.
 */
export function maskPersonalDataInText(text: string): string {
  let masked = text
    .replace(PUNCTUATED_CNPJ, maskWritten)
    .replace(PUNCTUATED_CPF, maskWritten)
    .replace(BARE_DIGITS, (digits) => maskDocument(digits))
    .replace(BARE_ALPHANUMERIC_CNPJ, (value) =>
      hasValidCnpjCheckDigits(value.toUpperCase()) ? maskDocument(value.toUpperCase()) : value,
    )
    .replace(EMAIL, REDACTED);
  if (PERSONAL_FIELD_MENTION.test(masked)) {
    masked = masked
      .replace(QUOTED, (quoted) => (MASKED_DOCUMENT.test(quoted) ? quoted : `"${REDACTED}"`))
      .replace(DATE, REDACTED);
  }
  return masked;
}

const MAX_DEPTH = 12;
const DOCUMENT_LENGTHS = new Set([11, 14]);

/**
 * A copy of a log entry's value safe to write: documents masked and personal values hidden anywhere in it, in
 * strings, numbers (a CPF stored as a number), object keys and errors (name, message, stack), at any depth.
 * Values of personal fields ({@link PERSONAL_FIELDS}) become {@link REDACTED} whatever they hold. Never throws:
 * cycles and very deep values are cut.
 */
export function redactForLog(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return maskPersonalDataInText(value);
  if (typeof value === 'number' || typeof value === 'bigint') {
    const digits = String(value);
    return /^\d+$/.test(digits) && DOCUMENT_LENGTHS.has(digits.length) ? maskDocument(digits) : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[too deep]';
  seen.add(value);
  if (value instanceof Error) {
    const error: Record<string, unknown> = {
      name: value.name,
      message: maskPersonalDataInText(value.message),
    };
    if (value.stack !== undefined) error.stack = maskPersonalDataInText(value.stack);
    if (value.cause !== undefined) error.cause = redactForLog(value.cause, depth + 1, seen);
    return error;
  }
  if (value instanceof Date) return value;
  if (Array.isArray(value)) return value.map((item) => redactForLog(item, depth + 1, seen));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[maskPersonalDataInText(key)] = PERSONAL_FIELDS.has(fold(key))
      ? REDACTED
      : redactForLog(item, depth + 1, seen);
  }
  return copy;
}
