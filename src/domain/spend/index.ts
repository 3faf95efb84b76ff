export * from './budget.ts';
export * from './quote.ts';
