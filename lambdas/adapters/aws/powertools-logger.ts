import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { Logger } from '../../core/ports/index.ts';

/** Structured JSON logs in Lambda (Powertools); documents reach it masked, never in clear. */
export function createLambdaLogger(serviceName = 'credit-screen'): Logger {
  const logger = new PowertoolsLogger({ serviceName });
  return {
    debug: (message, details) => logger.debug(message, details ?? {}),
    info: (message, details) => logger.info(message, details ?? {}),
    warn: (message, details) => logger.warn(message, details ?? {}),
    error: (message, details) => logger.error(message, details ?? {}),
  };
}

/** A logger that keeps entries in memory (local runs show only a progress bar; tests read the entries). */
export class MemoryLogger implements Logger {
  readonly entries: { level: string; message: string; details?: Record<string, unknown> }[] = [];
  debug(message: string, details?: Record<string, unknown>): void {
    this.entries.push({ level: 'debug', message, details });
  }
  info(message: string, details?: Record<string, unknown>): void {
    this.entries.push({ level: 'info', message, details });
  }
  warn(message: string, details?: Record<string, unknown>): void {
    this.entries.push({ level: 'warn', message, details });
  }
  error(message: string, details?: Record<string, unknown>): void {
    this.entries.push({ level: 'error', message, details });
  }
}
