export {
  BUREAU_CALL_ERROR_KINDS,
  type BureauCallCharge,
  BureauCallError,
  type BureauCallErrorKind,
  type BureauCallFailure,
} from './bureau-call-error.ts';
