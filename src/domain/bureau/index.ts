export { BureauCallError } from './bureau-call-error.ts';
