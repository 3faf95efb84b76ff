export * from './change-detection.ts';
export * from './changes-csv.ts';
export * from './portfolio.ts';
