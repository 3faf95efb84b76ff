import { redactForLog } from '../../domain/documents/index.ts';
import type { Logger } from '../../domain/ports/index.ts';

/** One entry of a {@link MemoryLogger}. */
export interface MemoryLogEntry {
  readonly level: string;
  readonly message: string;
  readonly details?: Record<string, unknown>;
}

/**
 * A logger that keeps entries in memory (local runs show only a progress bar; tests read the entries), masked as
 * the Lambda logger masks them, so what a local run keeps is no more personal than what CloudWatch would.
 */
export class MemoryLogger implements Logger {
  readonly entries: MemoryLogEntry[] = [];
  debug(message: string, details?: Record<string, unknown>): void {
    this.#keep('debug', message, details);
  }
  info(message: string, details?: Record<string, unknown>): void {
    this.#keep('info', message, details);
  }
  warn(message: string, details?: Record<string, unknown>): void {
    this.#keep('warn', message, details);
  }
  error(message: string, details?: Record<string, unknown>): void {
    this.#keep('error', message, details);
  }
  #keep(level: string, message: string, details: Record<string, unknown> | undefined): void {
    this.entries.push({
      level,
      message: redactForLog(message) as string,
      details: details === undefined ? undefined : (redactForLog(details) as Record<string, unknown>),
    });
  }
}
