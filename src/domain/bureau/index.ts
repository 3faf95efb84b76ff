export { BureauCallError } from './bureau-call-error.ts';
export * from './bureau-endpoint.ts';
export * from './bureau-ids.ts';
export * from './bureau-registry.ts';
