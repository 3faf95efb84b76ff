export * from './review-case.ts';
