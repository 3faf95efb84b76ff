import { parseDocument } from '../documents/index.ts';
import { BUREAUS, type Bureau } from './raw-credit-report.ts';

/**
 * How a raw bureau response is archived (S3 `raw/…`): the body exactly as received, with what is needed to
 * normalise it again later without guessing.
 */
export interface ReportArchive {
  readonly archiveVersion: 1;
  readonly bureau: Bureau;
  readonly document: string;
  /** When the response arrived (ISO 8601). */
  readonly fetchedAt: string;
  readonly httpStatus: number;
  /** The response body, unchanged. */
  readonly response: Readonly<Record<string, unknown>>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isReportArchive(value: unknown): value is ReportArchive {
  return (
    isObject(value) &&
    value.archiveVersion === 1 &&
    BUREAUS.includes(value.bureau as Bureau) &&
    typeof value.document === 'string' &&
    typeof value.fetchedAt === 'string' &&
    isObject(value.response)
  );
}

/**
 * The document a response is about, read from its registration data (`dadosCadastrais.cpf` or `.cnpj`); null when
 * the response does not say (bureau B companies have no registration data).
 */
export function documentOfResponse(response: unknown): string | null {
  if (!isObject(response) || !isObject(response.dados) || !isObject(response.dados.consultaCredito))
    return null;
  const registration = response.dados.consultaCredito.dadosCadastrais;
  if (!isObject(registration)) return null;
  for (const key of ['cpf', 'cnpj']) {
    const value = registration[key];
    if (typeof value === 'string') {
      const check = parseDocument(value);
      if (check.valid) return check.document;
    }
  }
  return null;
}
