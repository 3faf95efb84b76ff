export {
  cnpjCheckDigits,
  cpfCheckDigits,
  hasValidCnpjCheckDigits,
  hasValidCpfCheckDigits,
} from './check-digits.ts';
export { formatDocument, maskDigits, maskDocument } from './format-document.ts';
export type {
  DocumentCheck,
  DocumentType,
  RejectionCode,
} from './parse-document.ts';
export { parseDocument } from './parse-document.ts';
export { maskPersonalDataInText, REDACTED, redactForLog } from './redact-for-logs.ts';
