export * from './gcra.ts';
export * from './rate-limits.ts';
