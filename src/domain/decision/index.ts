export * from './customer-values.ts';
export * from './decision.ts';
export * from './decision-input.ts';
export { mapInOrder } from './map-in-order.ts';
export * from './override.ts';
