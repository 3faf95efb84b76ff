export * from './token-bucket.ts';
