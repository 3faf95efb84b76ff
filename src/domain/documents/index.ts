export {
  cnpjCheckDigits,
  cpfCheckDigits,
  hasValidCnpjCheckDigits,
  hasValidCpfCheckDigits,
} from './check-digits.ts';
export { formatDocument, maskDocument } from './format-document.ts';
export type {
  ColumnEvidence,
  DocumentCheck,
  DocumentType,
  InvalidDocument,
  RejectionCode,
  ValidDocument,
} from './parse-document.ts';
export { parseDocument } from './parse-document.ts';
export { maskPersonalDataInText, REDACTED, redactForLog } from './redact-for-logs.ts';
