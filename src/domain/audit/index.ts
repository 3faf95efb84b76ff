export * from './audit-entry.ts';
