export * from './gcra.ts';
export * from './token-bucket.ts';
