export * from './credit-report-client.ts';
export * from './http-transport.ts';
export * from './service-errors.ts';
